"""Tensors as files for the runner (one JSON header line, then the raw bytes), values on the
device and on the host, and the checks on what a call returned."""
import ctypes
import os
from kaudit_harness_protocol import _dumps, _loads, _sha256, CONFIG, open_existing, open_new
from kaudit_harness_seals import T


def dtype_name(t):
    return str(t.dtype).replace("torch.", "")


def write_tensor(torch, t, path):
    """One JSON header line, then the tensor's bytes in row-major order.
    Returns the file's name relative to the exchange folder."""
    if type(t) is not T.Tensor:
        t = T.as_subclass(t, T.Tensor)
    c = T.cpu(T.contiguous(T.detach(t)))
    nbytes = T.numel(c) * T.element_size(c)
    header = {"dtype": dtype_name(c), "shape": list(c.shape), "nbytes": nbytes}
    with open_new(path) as f:
        f.write((_dumps(header) + "\n").encode())
        if nbytes:  # straight from the tensor's memory, no copy
            f.write((ctypes.c_ubyte * nbytes).from_address(T.data_ptr(c)))
    return os.path.relpath(path, CONFIG["xfer"])


def read_tensor(torch, path, device):
    with open_existing(path) as f:
        header = _loads(f.readline())
        t = T.empty(header["shape"], dtype=getattr(torch, header["dtype"]))
        nbytes = T.numel(t) * T.element_size(t)
        if nbytes != header["nbytes"]:
            raise ValueError("%s: byte count does not match the shape" % path)
        if nbytes and f.readinto((ctypes.c_ubyte * nbytes).from_address(T.data_ptr(t))) != nbytes:
            raise ValueError("%s: truncated" % path)
    return T.to(t, device)


def write_values(torch, values, prefix):
    """Inputs and outputs as entries: tensors to files, plain values inline."""
    entries = []
    for k, v in enumerate(values):
        if isinstance(v, T.Tensor):
            entries.append({"file": write_tensor(torch, v, "%s%d.bin" % (prefix, k))})
        elif v is None or isinstance(v, (bool, int, float, str)):
            entries.append({"value": v})
        else:
            raise TypeError("unsupported value of type %s" % type(v).__name__)
    return entries


def host_values(values):
    """Tensors copied to host memory, other values as they are: the device's
    part of writing them, done before device_idle()."""
    return [T.cpu(T.contiguous(T.detach(v if type(v) is T.Tensor else T.as_subclass(v, T.Tensor))))
            if isinstance(v, T.Tensor) else v for v in values]


def read_files(torch, entries, cache=None):
    """The files of an entry list that the cache (a dict) does not hold yet,
    read into host memory: file work, done before device_turn(). read_values
    then only copies them to the device."""
    read = {}
    for e in entries:
        if "file" in e and e["file"] not in (cache or {}) and e["file"] not in read:
            read[e["file"]] = read_tensor(torch, os.path.join(CONFIG["xfer"], e["file"]), "cpu")
    return read


def read_values(torch, entries, device, cache=None, host=None):
    """Entries back to values; an entry's "scale" (numeric-stress cases) is
    applied as the tensor is read. With a cache (a dict), a file already read
    is not read again; every value returned is still a tensor of its own.
    host: files read_files() already read into host memory."""
    xfer = CONFIG["xfer"]
    host = host or {}

    def load(name):
        if name in host:
            return T.to(host[name], device)
        return read_tensor(torch, os.path.join(xfer, name), device)

    values = []
    for e in entries:
        if "file" not in e:
            values.append(e["value"])
            continue
        if cache is None:
            t = load(e["file"])
            if "scale" in e and t is host.get(e["file"]):
                t = T.clone(t)  # the host's tensor itself (already on the device): scaled below in place
        else:
            if e["file"] not in cache:
                cache[e["file"]] = load(e["file"])
            t = T.clone(cache[e["file"]])
        if "scale" in e:
            scale_in_place(torch, t, float(e["scale"]))
        values.append(t)
    return values


# Whole-tensor temporaries of a bitwise comparison (a bool per byte) or of a
# scaled read (an fp32 copy) are as large as the tensor or larger: gigabytes
# for MoE's weights, beside every other tensor a correctness call keeps
# (its submission's process allocated 27 GB). Both go in pieces of this many
# elements instead; the results are the same bits.
PIECE_ELEMENTS = 1 << 26


def pieces(n):
    """(start, length) of consecutive pieces of n elements."""
    return [(start, min(PIECE_ELEMENTS, n - start)) for start in range(0, n, PIECE_ELEMENTS)]


def scale_in_place(torch, t, scale):
    """t (a tensor of its own, contiguous) times scale, rounded to its dtype
    through fp32: a numeric-stress case's inputs, the same bits in either
    process."""
    flat = T.reshape(t, (-1,))
    for start, length in pieces(T.numel(flat)):
        piece = T.narrow(flat, 0, start, length)
        T.copy_(piece, T.to(T.to(piece, torch.float32) * scale, t.dtype))


# Room in a CPU run's settled host memory for the calls' own outputs and
# temporaries, beside the inputs a timing mode keeps alive.
HOST_POOL_MARGIN = 64 << 20


HOST_POOL_PIECE = 16 << 20  # under glibc's largest mmap threshold, so freed pieces stay


def settle_host_allocator(torch, nbytes):
    """A CPU run's allocator made to keep what it frees (no trimming back to
    the system, no mapping of its own for an allocation under 32 MiB) and
    nbytes of it touched once, before each timing mode: then no mode's timed calls
    pay for first-touch page faults that another mode's do not (fresh inputs
    drew new pages on every call, and an honest silu(g) * x took 35x longer
    on them). Best effort: without glibc's mallopt nothing changes."""
    try:
        libc = ctypes.CDLL(None)
        if not (libc.mallopt(-1, 1 << 30) and libc.mallopt(-3, 32 << 20)):  # M_TRIM_THRESHOLD, M_MMAP_THRESHOLD
            return
    except (OSError, AttributeError):
        return
    pieces = [T.full((HOST_POOL_PIECE,), 0, dtype=torch.uint8) for _ in range(max(1, nbytes // HOST_POOL_PIECE))]
    del pieces


def sync(torch):
    if CONFIG["device"] == "cuda":
        T.synchronize()


def inputs_digest(values):
    """A fingerprint of a call's inputs, the same in both processes: each
    tensor's dtype, shape and the bytes at up to 4096 evenly spaced places,
    numbers as written. Says whether the submission's process drew from a
    seed what the reference draws from it (not a security measure: the
    submission's process computes its half)."""
    h = _sha256()
    for v in values:
        if isinstance(v, T.Tensor):
            flat = T.view(T.reshape(T.contiguous(T.detach(v)), (-1,)), T.uint8)
            n = T.numel(flat)
            picked = flat[::max(1, n // 4096)][:4096]
            h.update(("%s%s:" % (dtype_name(v), list(v.shape))).encode())
            h.update(bytes(T.cpu(picked).tolist()))
        else:
            h.update(("v%r:" % (v,)).encode())
    return h.hexdigest()


def returned(out):
    """A call's returned objects as a list (one object, or a tuple or list of them)."""
    return list(out) if isinstance(out, (tuple, list)) else [out]


def input_spans(torch, inputs):
    """The storage (start, bytes) of each non-empty input tensor."""
    return [storage_range(torch, t) for t in inputs if isinstance(t, torch.Tensor) and t.numel()]


def shares_storage(torch, t, spans):
    lo, n = storage_range(torch, t)
    return any(lo < b + m and b < lo + n for b, m in spans)


def storage_range(torch, t):
    s = T.storage(t)
    return s.data_ptr(), (s.nbytes() if hasattr(s, "nbytes") else s.size() * s.element_size())


class OutputChecks:
    """Facts about returned objects: plain tensor, alias of an input, reuse."""

    def __init__(self, torch):
        self.torch = torch
        # Calls, and calls with at least one returned object of each kind (a
        # call returning values and indices counts once: "N of M calls").
        self.counts = {"calls": 0, "not_tensor": 0, "non_plain": 0, "aliases_input": 0, "reused": 0}
        self.types = set()
        self.previous = []
        self.retired = []

    def let_go(self):
        """Frees the outputs of the call before the previous one. Timing
        calls this once the next call's inputs are made, so that in every
        mode the call's own allocations find the same freed memory."""
        self.retired = []

    def check(self, out, inputs):
        torch = self.torch
        outs = returned(out)
        self.counts["calls"] += 1
        ins = input_spans(torch, inputs)
        prev = [storage_range(torch, t) for t in self.previous if isinstance(t, torch.Tensor)]
        seen = set()
        for o in outs:
            if not isinstance(o, torch.Tensor):
                seen.add("not_tensor")
                self.types.add(type(o).__name__)
                continue
            if type(o) is not torch.Tensor:
                seen.add("non_plain")
                self.types.add(type(o).__name__)
            if T.numel(o) == 0:
                continue
            if shares_storage(torch, o, ins):
                seen.add("aliases_input")
            # The previous call's output is still held here: the same storage
            # again means the submission wrote into what it returned before
            # (an output in an input's storage is counted as an alias only).
            elif any(storage_range(torch, o)[0] == b for b, m in prev):
                seen.add("reused")
        for kind in seen:
            self.counts[kind] += 1
        self.retired = self.previous
        self.previous = outs
        return outs


def release_cached(torch):
    """The allocator's cached blocks given back to the device (before a
    correctness call's poison): blocks cut for earlier calls' sizes otherwise
    stay reserved beside the ones this call needs (a paged-attention run's
    submission reserved 24.5 GB for 12.9 allocated), and a run's reserved
    peak is what a batch's device memory budget counts."""
    if CONFIG["device"] == "cuda":
        T.empty_cache()


def poison(torch, nbytes):
    """Leaves freed memory full of 0xFF bytes (NaN for floats) so that an
    output that is never written reads as wrong. Effective with the CUDA
    caching allocator; best effort on the CPU."""
    if not CONFIG.get("poison") or nbytes <= 0:
        return
    blocks = [T.full((max(nbytes, 1 << 20),), 255, dtype=T.uint8, device=CONFIG["device"])]
    blocks += [T.full((1 << k,), 255, dtype=T.uint8, device=CONFIG["device"]) for k in range(10, 21, 2)]
    sync(torch)
    del blocks


def clone_tensor(torch, v):
    return T.clone(v) if isinstance(v, T.Tensor) else v


def same_values(torch, a, b):
    """Bitwise: NaN payloads and -0.0 count as changes."""
    for x, y in zip(a, b):
        if isinstance(x, T.Tensor):
            if x.shape != y.shape or x.dtype != y.dtype:
                return False
            xb, yb = T.view(T.reshape(x, (-1,)), T.uint8), T.view(T.reshape(y, (-1,)), T.uint8)
            for start, length in pieces(T.numel(xb)):
                if not T.equal(T.narrow(xb, 0, start, length), T.narrow(yb, 0, start, length)):
                    return False
        elif x != y:
            return False
    return True


# About 2 ms of a busy caller's stream on an H200 (torch.cuda._sleep spins
# for this many GPU clock cycles) before the stream-order probe's call.
STREAM_PROBE_SLEEP_CYCLES = 4_000_000


# Inputs of a shape's correctness calls kept alive at most, and memory
# poisoned at most before a call: runs sharing a device must fit beside it.
HOLD_BYTES = 4 << 30


def tensor_bytes(torch, values):
    return sum(v.numel() * v.element_size() for v in values if isinstance(v, torch.Tensor))


# Device memory peaks by phase of this process (note_memory_phase), and the
# process's own peaks over every phase noted so far: torch keeps one peak,
# reset at each note.
_PHASE_PEAKS = {}
_PROCESS_PEAKS = {"allocated": 0, "reserved": 0}


def _allocator_peaks(torch, reset=False):
    """(allocated, reserved) peaks in bytes of torch's allocator since its
    last reset, and the peaks reset if asked; None on the CPU or where the
    allocator cannot say (a peak not to be had is no fault of the run)."""
    if CONFIG["device"] != "cuda":
        return None
    try:
        peaks = torch.cuda.max_memory_allocated(), torch.cuda.max_memory_reserved()
        if reset:
            torch.cuda.reset_peak_memory_stats()
    except Exception:  # noqa: BLE001 - see the docstring
        return None
    return peaks


def note_memory_phase(torch, phase):
    """The most device memory allocated since the last note, counted to
    `phase` (device_memory's `<phase>_peak_allocated_mib`): where a run's
    footprint is, so that it can be cut where it is (a CUDA run; else
    nothing)."""
    peaks = _allocator_peaks(torch, reset=True)
    if peaks is None:
        return
    allocated, reserved = peaks
    _PROCESS_PEAKS["allocated"] = max(_PROCESS_PEAKS["allocated"], allocated)
    _PROCESS_PEAKS["reserved"] = max(_PROCESS_PEAKS["reserved"], reserved)
    _PHASE_PEAKS[phase] = max(_PHASE_PEAKS.get(phase, 0), allocated)


def device_memory(torch):
    """This process's device memory peaks as torch's allocator saw them (a
    CUDA run; else nothing): what runs side by side on one device must fit
    in. With each noted phase's allocated peak."""
    now = _allocator_peaks(torch)
    if now is None:
        return {}
    mib = 1 << 20
    allocated = max(_PROCESS_PEAKS["allocated"], now[0])
    reserved = max(_PROCESS_PEAKS["reserved"], now[1])
    peaks = {"peak_allocated_mib": round(allocated / mib, 1), "peak_reserved_mib": round(reserved / mib, 1)}
    for phase, peak in sorted(_PHASE_PEAKS.items()):
        peaks["%s_peak_allocated_mib" % phase] = round(peak / mib, 1)
    return peaks
