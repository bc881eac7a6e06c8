"""kaudit harness shim: the only Python in kaudit (docs/runner.md).

The runner (`kaudit run`) starts this file in the submission's interpreter,
once as the reference process and once as the submission process. It loads
the problem and the solution, generates inputs, calls the model and hands
every tensor to the runner as a file (one JSON header line, then the raw
bytes). It decides nothing: the runner compares the files itself, outside
this process, so a submission that patches torch cannot change a verdict.

Messages go to the runner as JSON lines on the file descriptor it opened
(config "channel_fd"), never on stdout.

The submission runs in this process and can reach anything in it: nothing
it says is taken on trust (docs/threat-model.md). The harness binds every
function it relies on before the submission is imported and reports any
that was replaced afterwards (`tampered`); the runner times each timed call
from outside, reveals which calls it checks only after they returned, and
reads every tensor as bytes.
"""
import ctypes
import hashlib
import importlib.util
import json
import math
import os
import secrets
import stat
import sys
import time
import traceback
import types

CONFIG = {}
CHANNEL_FD = -1

# Bound before anything else is imported: what the harness calls is these,
# whatever the submission later does to the modules they came from.
_dumps = json.dumps
_loads = json.loads
_os_write = os.write
_os_open = os.open
_os_close = os.close
_os_fstat = os.fstat
_os_fdopen = os.fdopen
_perf_counter = time.perf_counter
_isreg = stat.S_ISREG
_token_hex = secrets.token_hex
_stdin_readline = sys.stdin.readline
_exc_format = traceback.format_exception
_sha256 = hashlib.sha256


def send(event, **fields):
    fields["event"] = event
    data = (_dumps(fields, separators=(",", ":")) + "\n").encode()
    while data:
        data = data[_os_write(CHANNEL_FD, data):]


def receive():
    """One line from the runner (stdin), without its newline."""
    return _stdin_readline().strip()


def device_turn():
    """A point before a piece of untimed GPU work where a run sharing the
    device and waiting to time goes first: the runner answers "go" once this
    run may use the device (at once when nobody waits, or on the CPU)."""
    send("turn")
    if receive() != "go":
        raise RuntimeError("the runner did not give the device back")


def device_idle():
    """This process needs the device no more until its next device_turn():
    what follows is file work (tensors already copied to host memory), and a
    run waiting to time need not wait for it. No answer."""
    send("device_idle")


def raised_by(exc):
    """An exception a call raised, for the runner (`call`'s `raised`)."""
    tb = _exc_format(type(exc), exc, exc.__traceback__)
    return {"type": type(exc).__name__, "message": str(exc)[:2000], "traceback": "".join(tb)[-4000:]}


def fail(phase, exc):
    tb = _exc_format(type(exc), exc, exc.__traceback__)
    send("error", phase=phase, type=type(exc).__name__, message=str(exc)[:2000],
         traceback="".join(tb)[-4000:])


# ---------------------------------------------------------------- tensor files

def dtype_name(t):
    return str(t.dtype).replace("torch.", "")


class Ops:
    """Torch functions and tensor methods the harness uses, bound from torch's
    C types before the submission is imported (bind_torch)."""


T = Ops()


def bind_torch(torch):
    # As torch.Tensor has them now, C or Python, before the submission runs.
    for name in ("clone", "contiguous", "detach", "cpu", "view", "reshape", "numel", "element_size",
                 "data_ptr", "copy_", "to", "is_floating_point", "as_subclass"):
        setattr(T, name, getattr(torch.Tensor, name))
    # torch 1.x has typed storages only.
    T.storage = getattr(torch.Tensor, "untyped_storage", None) or torch.Tensor.storage
    for name in ("equal", "empty", "full", "manual_seed"):
        setattr(T, name, getattr(torch, name))
    T.Tensor = torch.Tensor
    T.device = torch.device  # a context manager since torch 2.0: the default device of tensors made inside
    T.uint8 = torch.uint8
    T.Module = torch.nn.Module
    T.state_dict = torch.nn.Module.state_dict
    if torch.cuda.is_available():
        T.Event = torch.cuda.Event
        T.synchronize = torch.cuda.synchronize
        T.ev_record = torch.cuda.Event.record
        T.ev_synchronize = torch.cuda.Event.synchronize
        T.ev_elapsed = torch.cuda.Event.elapsed_time


def seals(torch):
    """(owner, name, object) for every function the harness relies on, and
    every function of the harness itself: none may be replaced once the
    submission runs."""
    pairs = [(json, "dumps"), (json, "loads"), (os, "write"), (os, "open"), (os, "fstat"),
             (time, "perf_counter"), (torch, "equal"), (torch, "empty"), (torch, "full"),
             (torch, "manual_seed"), (torch.Tensor, "clone"), (torch.Tensor, "copy_"),
             (torch.Tensor, "data_ptr"), (torch.Tensor, "untyped_storage"), (torch.Tensor, "storage"),
             (torch.Tensor, "__eq__")]
    if CONFIG["device"] == "cuda":
        pairs += [(torch.cuda, "Event"), (torch.cuda, "synchronize"), (torch.cuda.Event, "record"),
                  (torch.cuda.Event, "elapsed_time"), (torch.cuda.Event, "synchronize")]
    pairs += [(torch.nn.Module, "state_dict"), (torch.nn.Module, "load_state_dict")]
    out = [(owner, name, getattr(owner, name)) for owner, name in pairs if hasattr(owner, name)]
    out += recorder_seals(torch)
    here = sys.modules[__name__]
    # Every global of the harness (its functions, classes, the modules it
    # named), and the code inside each of its functions and methods: a
    # frame walk can reach them without touching any module.
    out += [(here, name, obj) for name, obj in list(vars(here).items()) if not name.startswith("__")]
    out += [(T, name, obj) for name, obj in list(vars(T).items())]
    functions = [obj for obj in vars(here).values() if isinstance(obj, types.FunctionType)]
    for cls in [obj for obj in vars(here).values() if isinstance(obj, type) and obj.__module__ == __name__]:
        methods = [(name, f) for name, f in vars(cls).items() if isinstance(f, types.FunctionType)]
        # The methods as the class holds them: one put in a method's place
        # on the class leaves the sealed function's code as it was.
        out += [(cls, name, f) for name, f in methods]
        functions += [f for _, f in methods]
    return out + code_seals(functions)


def code_seals(functions):
    """The code of each function: swapping it (setattr(f, "__code__", ...)) keeps the function."""
    return [(f, "__code__", f.__code__) for f in functions]


# Immutable, and a global the seals pin: a submission can neither add its
# own code to it nor rebind it unseen.
TORCH_WRAPPER_CODES = frozenset()


def bind_torch_wrappers(torch):
    """The code of torch's own "no dynamo here" wrapper (torch._disable_dynamo),
    which torch puts around functions lazily (dispatch modes, manual_seed)."""
    global TORCH_WRAPPER_CODES
    make = getattr(torch, "_disable_dynamo", None)
    if make is None:
        return
    try:
        TORCH_WRAPPER_CODES = frozenset([make(lambda: None).__code__])
    except Exception:  # noqa: BLE001 - then no wrapper is accepted
        pass


def torch_wrapped(now, obj):
    """Whether `now` is torch's own wrapper around `obj`: torch's code, and a
    closure holding `obj` and nothing else callable, so it can only call it."""
    code = getattr(now, "__code__", None)
    if code is None or code not in TORCH_WRAPPER_CODES:
        return False
    cells = []
    for c in getattr(now, "__closure__", None) or ():
        try:
            cells.append(c.cell_contents)
        except ValueError:  # an empty cell
            continue
    return any(c is obj for c in cells) and all(c is obj or not callable(c) for c in cells)


def replaced(sealed):
    """Names of sealed functions that are no longer what they were (torch's
    own wrapper around one, which calls it unchanged, excepted)."""
    names = []
    for owner, name, obj in sealed:
        try:
            now = getattr(owner, name)
        except Exception:  # noqa: BLE001 - deleted, or a property that raises
            now = None
        # Bound methods compare equal, not identical, on every lookup.
        try:
            changed = now is not obj and bool(now != obj) and not torch_wrapped(now, obj)
        except Exception:  # noqa: BLE001 - an object whose comparison raises is not the one sealed
            changed = True
        if changed:
            names.append("%s.%s" % (getattr(owner, "__name__", type(owner).__name__), name))
    return names


def open_new(path):
    """A file the harness writes: never one that exists, never through a link."""
    fd = _os_open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    return _os_fdopen(fd, "wb")


def open_existing(path):
    """A file the harness reads: a regular file, never through a link."""
    fd = _os_open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    if not _isreg(_os_fstat(fd).st_mode):
        _os_close(fd)
        raise ValueError("%s is not a regular file" % path)
    return _os_fdopen(fd, "rb")


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
        else:
            if e["file"] not in cache:
                cache[e["file"]] = load(e["file"])
            t = T.clone(cache[e["file"]])
        if "scale" in e:
            t = T.to(T.to(t, torch.float32) * float(e["scale"]), t.dtype)
        values.append(t)
    return values


# ------------------------------------------------------------------- loading

def load_module(name, path):
    sys.path.insert(0, os.path.dirname(path))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def redirect_cuda_to_cpu(torch):
    """--device cpu: problems written for CUDA run unchanged on the CPU."""
    def fix_device(d):
        return "cpu" if d is not None and "cuda" in str(d) else d

    def wrap(fn):
        def wrapped(*args, **kwargs):
            if "device" in kwargs:
                kwargs["device"] = fix_device(kwargs["device"])
            return fn(*args, **kwargs)
        return wrapped

    for name in ("randn", "rand", "randint", "randperm", "zeros", "ones", "empty", "full", "arange",
                 "tensor", "as_tensor", "linspace", "eye", "normal", "empty_strided", "randn_like",
                 "rand_like", "randint_like", "zeros_like", "ones_like", "empty_like", "full_like"):
        if hasattr(torch, name):
            setattr(torch, name, wrap(getattr(torch, name)))
    tensor_to = torch.Tensor.to
    module_to = torch.nn.Module.to

    def t_to(self, *args, **kwargs):
        args = tuple(fix_device(a) if isinstance(a, (str, torch.device)) else a for a in args)
        if "device" in kwargs:
            kwargs["device"] = fix_device(kwargs["device"])
        return tensor_to(self, *args, **kwargs)

    def m_to(self, *args, **kwargs):
        args = tuple(fix_device(a) if isinstance(a, (str, torch.device)) else a for a in args)
        if "device" in kwargs:
            kwargs["device"] = fix_device(kwargs["device"])
        return module_to(self, *args, **kwargs)

    torch.Tensor.to = t_to
    torch.Tensor.cuda = lambda self, *a, **k: self
    torch.nn.Module.to = m_to
    torch.nn.Module.cuda = lambda self, *a, **k: self
    torch.cuda.synchronize = lambda *a, **k: None


class StateDictMismatch(Exception):
    """The solution's model does not take the reference's state_dict strictly."""


class Problem:
    def __init__(self, torch):
        self.torch = torch
        self.current = 0
        self.ref = load_module("reference", CONFIG["reference"])
        shapes = [{}]
        if CONFIG.get("shapes_file"):
            shapes = list(load_module("shapes", CONFIG["shapes_file"]).SHAPES)
        self.shapes = [dict(s) for s in shapes]
        # The graded shapes run, by their index among the problem's: all, or
        # the smallest (--shapes smallest, a run sized for a CPU). Both
        # processes choose alike from the same SHAPES.
        self.graded_count = len(self.shapes)
        self.graded_indices = list(range(len(self.shapes)))
        if CONFIG.get("shape_selection") == "smallest" and len(self.shapes) > 1:
            k = min(range(len(self.shapes)), key=lambda i: prod(size_dims(self, i).values()))
            self.shapes, self.graded_indices = [self.shapes[k]], [k]

    def apply_shape(self, i):
        self.current = i
        # KernelBench-Hard: the shape's values replace the reference module's globals.
        # A global an off-grid shape changed (a KernelBench size) gets its own value back first.
        defaults = self.__dict__.setdefault("defaults", {})
        for k, v in defaults.items():
            setattr(self.ref, k, v)
        for k, v in self.shapes[i].items():
            if k not in defaults and hasattr(self.ref, k):
                defaults[k] = getattr(self.ref, k)
            setattr(self.ref, k, v)

    def make_model(self, cls):
        torch = self.torch
        init = list(self.ref.get_init_inputs())
        T.manual_seed(CONFIG["init_seed"])
        model = cls(*init)
        if isinstance(model, torch.nn.Module):
            model = model.to(CONFIG["device"])
            model.eval()
        if cls is not self.ref.Model:
            self.load_reference_state(model, init)
        return model

    def load_reference_state(self, model, init):
        """KernelBench-Hard's check.py and benchmark.py load the reference
        model's state_dict into the solution's (load_state_dict, strict=True)
        before any call: the solution must declare the reference's parameters
        and buffers, and computes with the reference's values. check.py fails
        a mismatch; so does kaudit (StateDictMismatch: an error of the
        submission). KernelBench's evaluator loads none. The reference model
        is made here as its own process makes it (the same seed), on the CPU."""
        shape = self.current
        if CONFIG["format"] != "kernelbench_hard":
            send("state_dict", shape=shape, status="not applicable",
                 reason="KernelBench's evaluator loads no state_dict: both models are made under the same seed")
            return
        T.manual_seed(CONFIG["init_seed"])
        ref = self.ref.Model(*init)
        if not isinstance(ref, T.Module):
            send("state_dict", shape=shape, status="not applicable", reason="the reference's Model is not a torch.nn.Module")
            return
        sd = T.state_dict(ref)
        del ref
        try:
            if not isinstance(model, T.Module):
                raise RuntimeError("the solution's Model is not a torch.nn.Module")
            model.load_state_dict(sd, strict=True)  # the model's own method, as upstream calls it
        except Exception as e:  # noqa: BLE001 - a mismatch is the submission's error, said plainly
            reason = "%s: %s" % (type(e).__name__, str(e)[:1500])
            send("state_dict", shape=shape, status="failed", reason=reason)
            raise StateDictMismatch("the solution's Model does not take the reference's state_dict (load_state_dict, "
                                    "strict=True, as KernelBench-Hard's check.py loads it): " + reason) from None
        send("state_dict", shape=shape, status="loaded", keys=len(sd))

    def gen_inputs(self, seed):
        """A case's inputs, drawn from its seed in either process alike. On a
        GPU get_inputs runs with the device as torch's default, so what it
        makes without naming a device is drawn there: drawn on the host
        (torch.rand of 4096 x 4096, then a copy), fp8's inputs took 0.1 s a
        timed call, 14 s of each fresh and rewrite mode (issue 27). A
        get_inputs that needs host tensors (numpy, torch 1.x) raises there
        and is drawn on the host, as upstream draws it."""
        device = CONFIG["device"]
        if device != "cpu":
            # The device's math settings, which a submission may change (TF32
            # is a common honest choice), fixed while drawing: both processes
            # draw the same bytes from a seed even where get_inputs multiplies.
            torch = self.torch
            cudnn = torch.backends.cudnn
            saved = None
            T.manual_seed(seed)
            try:
                saved = (torch.get_float32_matmul_precision(), cudnn.allow_tf32)
                torch.set_float32_matmul_precision("highest")
                cudnn.allow_tf32 = False
                with T.device(device):
                    values = self.ref.get_inputs()
                return [T.to(v, device) if isinstance(v, T.Tensor) else v for v in values]
            except Exception:  # noqa: BLE001 - drawn on the host below, from the same seed
                pass
            finally:
                if saved:
                    torch.set_float32_matmul_precision(saved[0])
                    cudnn.allow_tf32 = saved[1]
        T.manual_seed(seed)
        return [T.to(v, device) if isinstance(v, T.Tensor) else v for v in self.ref.get_inputs()]


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


# ------------------------------------------------------------ ATen op record

class OpRecord:
    """Which ATen ops the submission ran (docs/runner.md, "ATen ops"): in one
    untimed call per shape on its first case's inputs and one per timing
    mode, never a graded or timed call (the recorder costs Python per op,
    and can change what a call returns). A TorchDispatchMode bound before
    the solution is imported sees every op the dispatcher runs on this
    thread: tensor methods, torch functions, torch.ops.aten, at:: calls from
    an extension. A custom kernel is not an ATen op. What keeps ops from the
    recorder is a gap, reported with the ops; never read as "not run"."""

    def __init__(self):
        self.mode_class = None  # bind_recorder
        self.unbound = "this torch has no TorchDispatchMode: no ATen op could be recorded"
        self.canary = None
        self.recording = False
        self.ops = {}
        self.calls = 0
        self.gaps = []
        self.seen_outside = 0


RECORD = OpRecord()
# Off-switches of dispatch modes in torch._C (those this torch has): used
# while a recorded call runs, they leave a gap in its record.
DISPATCH_SWITCHES = ("_DisableTorchDispatch", "_pop_torch_dispatch_stack", "_set_torch_dispatch_mode",
                     "_unset_dispatch_mode", "_set_dispatch_mode", "ExcludeDispatchKeyGuard",
                     "_ExcludeDispatchKeyGuard", "_dispatch_tls_set_dispatch_key_excluded")
# The switches that only turn dispatch off, which torch's own modules may
# hold under other names. The stack functions among DISPATCH_SWITCHES are not
# rebound there: torch's mode machinery (torch.utils._python_dispatch) calls
# its own names for them on every op a mode handles, and a wrapper there would
# see a gap in every recorded call.
DISPATCH_GUARDS = ("_DisableTorchDispatch", "ExcludeDispatchKeyGuard", "_ExcludeDispatchKeyGuard",
                   "_dispatch_tls_set_dispatch_key_excluded")
# What torch.utils._python_dispatch's modes rely on (torch 1.13 and 2.x names).
DISPATCH_HELPERS = ("TorchDispatchMode", "_TorchDispatchStackMode", "_push_mode", "_pop_mode",
                    "_pop_mode_temporarily", "_len_torch_dispatch_stack", "_get_dispatch_stack_at",
                    "_push_on_torch_dispatch_stack", "_pop_torch_dispatch_stack", "_set_torch_dispatch_mode")
SWITCH_WRAPPERS = []


def record_dispatch(mode, func, types, args=(), kwargs=None):
    """The recording mode's __torch_dispatch__: count the op, run it."""
    if RECORD.recording:
        name = str(func)[:200]
        RECORD.ops[name] = RECORD.ops.get(name, 0) + 1
    else:
        RECORD.seen_outside += 1
    return func(*args, **(kwargs or {}))


def note_gap(why):
    if why not in RECORD.gaps and len(RECORD.gaps) < 20:
        RECORD.gaps.append(why)


def switch_wrapper(name, original):
    def switched(*args, **kwargs):
        if RECORD.recording:
            note_gap("torch._C.%s was used during a recorded call: what ran under it is not recorded" % name)
        return original(*args, **kwargs)
    SWITCH_WRAPPERS.append(switched)
    return switched


def bind_recorder(torch):
    """Before the solution is imported: the recording mode and the stack
    functions it is checked with; the off-switches wrapped where code looks
    them up (torch._C), so that using one while a call is recorded shows."""
    try:
        from torch.utils import _python_dispatch as pd
        base = pd.TorchDispatchMode
        T.mode_enter = base.__enter__
        T.mode_exit = base.__exit__
        T.stack_len = getattr(torch._C, "_len_torch_dispatch_stack", None)
        T.stack_at = getattr(torch._C, "_get_dispatch_stack_at", None)
        RECORD.canary = T.empty(0)
        mode_class = type("RecordingMode", (base,), {"__torch_dispatch__": record_dispatch, "__module__": __name__})
    except Exception as e:  # noqa: BLE001 - no recorder: every record says so (a gap), the run goes on
        RECORD.unbound = "the recorder could not be made in this torch (%s: %s)" % (type(e).__name__, str(e)[:200])
        return
    RECORD.mode_class = mode_class
    guards = {}
    for name in DISPATCH_SWITCHES:
        original = getattr(torch._C, name, None)
        if original is not None:
            wrapper = switch_wrapper(name, original)
            setattr(torch._C, name, wrapper)
            if name in DISPATCH_GUARDS:
                guards[id(original)] = (original, wrapper)
    rebind_switch_aliases(guards)


# Module-level names that held an off-switch when the harness bound the
# recorder, now the wrapper (sealed with the recorder).
SWITCH_ALIASES = []


def rebind_switch_aliases(guards):
    """torch's own modules keep names for the off-switches, bound when torch
    was imported (torch 2.x: torch.utils._mode_utils.no_dispatch is
    torch._C._DisableTorchDispatch itself); the wrappers on torch._C alone
    would leave those unseen. Every such name in an imported torch module
    becomes the wrapper too (torch._C's own names already are)."""
    for module_name, module in list(sys.modules.items()):
        if not module_name.startswith("torch") or module is None:
            continue
        try:
            names = list(vars(module).items())
        except TypeError:
            continue
        for attr, value in names:
            pair = guards.get(id(value))
            if pair is not None and value is pair[0]:
                setattr(module, attr, pair[1])
                SWITCH_ALIASES.append((module, attr, pair[1]))


def recorder_seals(torch):
    """What the recorder relies on; replaced, it is harness-tampered."""
    names = DISPATCH_SWITCHES + ("_len_torch_dispatch_stack", "_get_dispatch_stack_at", "_push_on_torch_dispatch_stack")
    out = [(torch._C, name, getattr(torch._C, name)) for name in names if hasattr(torch._C, name)]
    out += code_seals(SWITCH_WRAPPERS) + SWITCH_ALIASES
    if RECORD.mode_class is None:
        return out
    out += [(RECORD, "mode_class", RECORD.mode_class), (RECORD.mode_class, "__torch_dispatch__", record_dispatch)]
    from torch.utils import _python_dispatch as pd
    # The helpers by identity, and the code of the functions among them and of
    # the bound __enter__/__exit__ (what pushes and pops the recorder).
    helpers = [(pd, name, getattr(pd, name)) for name in DISPATCH_HELPERS if hasattr(pd, name)]
    functions = [obj for _, _, obj in helpers if isinstance(obj, types.FunctionType)]
    functions += [f for f in (T.mode_enter, T.mode_exit) if isinstance(f, types.FunctionType)]
    return out + helpers + code_seals(functions)


def recorded_call(model, args):
    """One call of the model with the recorder on top of the dispatch stack.
    When it returns the recorder must still be there and still see ops;
    else the record has a gap."""
    if RECORD.mode_class is None:
        note_gap(RECORD.unbound)
        return model(*args)
    mode = RECORD.mode_class()
    depth = T.stack_len() if T.stack_len else None
    T.mode_enter(mode)
    RECORD.recording = True
    try:
        return model(*args)
    finally:
        RECORD.recording = False
        RECORD.calls += 1
        leave_recording(mode, depth)


def leave_recording(mode, depth):
    try:
        if depth is not None and (T.stack_len() != depth + 1 or T.stack_at(depth) is not mode):
            note_gap("the dispatch mode stack was changed during a recorded call")
        seen = RECORD.seen_outside
        T.clone(RECORD.canary)
        if RECORD.seen_outside == seen:
            note_gap("the recorder saw no op any more when a recorded call returned (dispatch modes were switched off)")
    except Exception as e:  # noqa: BLE001 - an unexpected stack: the record cannot vouch for the call
        note_gap("the recorder could not check the dispatch stack (%s: %s)" % (type(e).__name__, str(e)[:200]))
    try:
        T.mode_exit(mode, None, None, None)
    except Exception:  # noqa: BLE001 - the stack is not what the harness left
        note_gap("the recorder could not leave the dispatch stack")


def record_ops(torch, tracer, model, args, shape, phase):
    """One untimed call under the op recorder, reported as a group (`ops`).
    Never a graded or a timed call, whose outputs or time the recorder could
    change (a tensor made under a dispatch mode has its Python object at
    once: as_subclass on it fails in torch 1.13). An exception is a gap."""
    tracer.begin("probe", shape, "ops-" + phase, 0)
    try:
        recorded_call(model, args)
        sync(torch)
    except Exception as e:  # noqa: BLE001 - a gap in the record, not the run's error
        note_gap("the call raised under the recorder (%s: %s)" % (type(e).__name__, str(e)[:200]))
    tracer.end()
    send_ops(shape, phase)


def send_ops(shape, phase):
    """The record of one untimed call: a shape's first case, or a mode's."""
    send("ops", shape=shape, phase=phase, calls=RECORD.calls, ops=RECORD.ops, gaps=RECORD.gaps)
    RECORD.ops, RECORD.calls, RECORD.gaps = {}, 0, []


# ---------------------------------------------------------------- reference

# Inputs of at most this many bytes are copied once per shape to see whether
# the reference itself writes into them (reference_habits); bigger ones are
# assumed left alone, as nearly every reference leaves them.
HABIT_CHECK_BYTES = 1 << 30


def reference_habits(torch, problem, inputs):
    """Does the reference write into its inputs, or return one of them? A
    submission that does what the reference does is faithful to the problem
    (an in-place ReLU), not a cheat. Returns (indices of inputs it changed,
    whether an output shares an input's storage)."""
    model = problem.make_model(problem.ref.Model)
    before = [clone_tensor(torch, v) for v in inputs]
    out = model(*inputs)
    changed = [k for k, (b, v) in enumerate(zip(before, inputs))
               if isinstance(v, torch.Tensor) and not same_values(torch, [b], [v])]
    spans = input_spans(torch, inputs)
    aliased = any(isinstance(o, torch.Tensor) and o.numel() and shares_storage(torch, o, spans) for o in returned(out))
    return changed, aliased


# -------------------------------------------------------------- input probes
# Shapes near the graded ones and inputs from other distributions (issue 15,
# item 4; docs/runner.md, "Input probes"), made by the reference before the
# submission runs: each a correctness case like any other, its files named
# like the graded ones', the seed the runner's.

# Distribution probes only on shapes whose inputs are at most this many bytes.
PROBE_INPUT_BYTES = 1 << 30
NOT_A_SIZE = "not a size: changing it changes no input's shape"


def size_dims(problem, base):
    """The base shape's positive integers (KernelBench-Hard), or the reference
    module's positive integer globals (KernelBench), by name."""
    values = problem.shapes[base] or {k: v for k, v in vars(problem.ref).items() if not k.startswith("_")}
    return {k: v for k, v in values.items() if type(v) is int and v > 0}


def neighbours(v, graded_values):
    """Sizes near v, tried in order: [(step, [sizes])]. "aligned" keeps the
    largest power of two (at most 128, a common tile, and at most v/2) that
    divides v and every graded value of the size: a kernel may honestly rely
    on an alignment all graded shapes share, not on their exact values.
    "unaligned" is one element off. With nothing to keep, the one-off sizes
    are the aligned ones."""
    a = 1
    while all(g % (2 * a) == 0 for g in [v] + graded_values) and 2 * a <= 128 and 2 * a <= v // 2:
        a *= 2
    if a == 1:
        return [("aligned", [s for s in (v + 1, v - 1) if s > 0])]
    return [("aligned", [s for s in (v + a, v - a) if s > 0]), ("unaligned", [v + 1, v - 1])]


def input_shapes(torch, inputs):
    return [tuple(v.shape) if isinstance(v, torch.Tensor) else None for v in inputs]


def all_finite(torch, values):
    return all(bool(torch.isfinite(v).all()) for v in values if isinstance(v, torch.Tensor) and v.is_floating_point())


def reference_outputs(torch, problem, inputs):
    """The reference's outputs on copies of `inputs` (it may write into them)."""
    model = problem.make_model(problem.ref.Model)
    return returned(model(*[v.clone() if isinstance(v, torch.Tensor) else v for v in inputs]))


def try_shape(torch, problem, values, seed, base_shapes, base_finite):
    """Appends `values` as a shape and runs the reference on it: (inputs, None)
    when it accepts it, else (None, why) with the shape taken off again."""
    device_turn()
    problem.shapes.append(values)
    why = None
    try:
        problem.apply_shape(len(problem.shapes) - 1)
        inputs = problem.gen_inputs(seed)
        if input_shapes(torch, inputs) == base_shapes:
            why = NOT_A_SIZE
        elif not all_finite(torch, reference_outputs(torch, problem, inputs)) and base_finite:
            why = "the reference's output is not finite"
    except Exception as e:  # noqa: BLE001 - the reference refuses this shape
        why = "%s: %s" % (type(e).__name__, str(e)[:300])
    if why is not None:
        problem.shapes.pop()
        return None, why
    return inputs, None


def off_grid_shapes(torch, problem, token, inputs_dir, seed, budget):
    """Each size of the smallest graded shape moved to an aligned and then an
    unaligned neighbour, one at a time, while the reference accepts the shape
    and the budget lasts; the others reported with what was tried."""
    graded = [dict(s) for s in problem.shapes]
    base = min(range(len(graded)), key=lambda i: prod(size_dims(problem, i).values()))
    dims = size_dims(problem, base)
    problem.apply_shape(base)
    device_turn()
    base_inputs = problem.gen_inputs(seed)
    base_shapes = input_shapes(torch, base_inputs)
    base_finite = all_finite(torch, reference_outputs(torch, problem, base_inputs))
    del base_inputs
    tried, why, found, done = {d: [] for d in dims}, {}, {d: 0 for d in dims}, set()
    accepted = 0
    for step in ("aligned", "unaligned"):
        for dim, v in dims.items():
            sizes = dict(neighbours(v, graded_sizes(graded, dim))).get(step, [])
            for size in sizes if dim not in done and accepted < budget else []:
                values = dict(problem.shapes[base], **{dim: size})
                if values in graded:
                    continue
                tried[dim].append(size)
                inputs, reason = try_shape(torch, problem, values, seed, base_shapes, base_finite)
                if reason == NOT_A_SIZE:
                    done.add(dim)
                    why[dim] = reason
                    break
                if inputs is None:
                    why.setdefault(dim, reason)
                    continue
                index = len(problem.shapes) - 1
                send("probe_shape", shape=index, values=values, base=base, dim=dim, to=size, step=step,
                     **{"from": v})
                send("case", shape=index, case=0, probe={"kind": "off-grid"},
                     inputs=write_values(torch, inputs, os.path.join(inputs_dir, "%s_s%d_c0_" % (token, index))))
                found[dim] += 1
                accepted += 1
                break
    for dim in dims:
        if why.get(dim) == NOT_A_SIZE:
            send("probe_skipped", probe="off-grid", shape=base, name=dim, tried=[], skip="not-a-size", reason=NOT_A_SIZE)
        elif not found[dim] and tried[dim]:
            send("probe_skipped", probe="off-grid", shape=base, name=dim, tried=tried[dim], skip="rejected",
                 reason="the reference rejected every perturbed size: " + why[dim])
    return base


def graded_sizes(graded, dim):
    """The graded shapes' positive integer values of one size."""
    return [s[dim] for s in graded if type(s.get(dim)) is int and s[dim] > 0]


def prod(values):
    p = 1
    for v in values:
        p *= v
    return p


def row_ties(torch, t):
    """How many neighbours in the sorted rows (the last dimension) of t are equal."""
    if t.dim() == 0 or t.shape[-1] < 2:
        return 0
    v = t if t.dtype in (torch.float32, torch.float64) else t.float()
    s = torch.sort(v.reshape(-1, t.shape[-1]), dim=-1).values
    return int((s[:, 1:] == s[:, :-1]).sum())


def makes_ties(torch, before, after):
    """Whether `after` holds more equal values in its rows than `before` did,
    beyond the odd pair rounding makes (a shift or a scale can round two near
    values onto one): equal values make two correct kernels return different
    indices, beyond what the stress cases' allowance forgives."""
    return row_ties(torch, after) - row_ties(torch, before) > max(1, after.numel() // 4000)


def permuted(torch, t):
    """t's elements shuffled across the tensor; within each row instead where
    that would make equal values in rows (rows that share their values, as a
    top-k problem's do: equal values make two correct kernels pick different
    indices)."""
    flat = t.reshape(-1)
    y = flat[torch.randperm(flat.numel(), device=t.device)].reshape(t.shape)
    if t.dim() and makes_ties(torch, t, y):
        y = torch.gather(t, -1, torch.argsort(torch.rand(t.shape, device=t.device), dim=-1))
    return y.contiguous()


def redrawn(torch, t, kind):
    """t's values drawn another way: permuted, shifted off zero, scaled row by
    row, heavy-tailed (Student's t, 2 degrees of freedom), or a few special
    values (a zero, huge and tiny ones, none already there). A tensor of one
    sign (decays, probabilities, variances) keeps its sign."""
    if kind == "permuted":
        return permuted(torch, t)
    x = t.float()
    mean = x.mean()
    std = x.std() if x.numel() > 1 else torch.ones((), device=t.device)
    if not bool(torch.isfinite(std)) or float(std) == 0:
        std = torch.ones((), device=t.device)
    sign = 1.0 if bool((x >= 0).all()) else -1.0 if bool((x <= 0).all()) else 0.0
    if kind == "shifted":
        y = x + (sign or 1.0) * (mean.abs() + 2 * std)
    elif kind == "scaled":
        rows = tuple(t.shape[:-1]) + (1,) if t.dim() > 1 else tuple(t.shape)
        y = x * torch.exp2(torch.rand(rows, device=t.device) * 8 - 4)
    elif kind == "heavy-tailed":
        u = torch.rand(t.shape, device=t.device).clamp_min(1e-30)
        y = mean + std * (torch.randn(t.shape, device=t.device) / torch.sqrt(-torch.log(u))).clamp(-1e3, 1e3)
        y = y if sign == 0 else sign * y.abs()
    else:  # special
        y = x.clone().reshape(-1)
        n = min(16, max(1, y.numel() // 64))
        values = [0.0] + [float(std) * ((32 + 2 * i) if i % 2 else 2.0 ** -(10 + i)) * (1 if i % 4 < 2 else -1)
                          for i in range(1, n)]
        values = [abs(v) * sign if sign else v for v in values]
        values = [v for v in values if not bool((x == v).any())]
        if values:
            y[torch.randperm(y.numel(), device=t.device)[:len(values)]] = torch.tensor(values, device=t.device)
        y = y.reshape(t.shape)
    return y.to(t.dtype)


def redraw(torch, inputs, kind):
    """The floating-point data inputs redrawn (permuted: every floating dtype;
    the others: 2 bytes or more, as the stress cases); integer, boolean and
    index inputs, and plain values, stay as the generator made them. None when
    a redraw would make equal values in rows (makes_ties)."""
    out = []
    for v in inputs:
        data = isinstance(v, torch.Tensor) and v.is_floating_point() and v.numel() > 1
        if data and (kind == "permuted" or v.element_size() >= 2):
            y = redrawn(torch, v, kind)
            if kind != "permuted" and makes_ties(torch, v, y):
                return None, True
            out.append(y)
        else:
            out.append(v)
    return out, any(o is not v for o, v in zip(out, inputs))


# Per-input probes (issue 28, item 2): each input moved on its own toward
# the ends of its domain, so that a property every whole-input redraw keeps
# (fast-decaying gates, spread-out lengths, distinct pages) is broken one
# input at a time. An input of one sign has a domain with ends its role
# gives away: a log-decay (<= 0) toward 0 forgets slowly and away from it
# fast; a gate in [0, 1] toward either bound; a scale (> 0) small or large.
# Mixed-sign data has no such end (the whole-input redraws cover it). The
# reference, and the conditioning check, decide what it can answer.
INPUT_ENDS = "input-ends"
TOWARD_ZERO = 256.0  # far enough that a log-decay forgets about nothing over hundreds of steps
AWAY_FROM_ZERO = 16.0  # as far as `scaled` goes: the other end is mild (underflow is no property)


def input_names(problem, count):
    """The reference forward's parameter names (an input's role by name), else in<k>."""
    import inspect
    try:
        params = [p for p in inspect.signature(problem.ref.Model.forward).parameters if p != "self"]
    except (TypeError, ValueError, AttributeError):
        params = []
    return [params[k] if k < len(params) and not params[k].startswith("*") else "in%d" % k for k in range(count)]


def domain_ends(torch, t):
    """(end, tensor) for each end of a one-signed float input's domain:
    toward-zero and away-from-zero, or toward-zero and toward-one for values
    in [0, 1]. Empty for mixed signs, a constant or non-finite values."""
    x = t.float()
    lo, hi = float(x.min()), float(x.max())
    if not (math.isfinite(lo) and math.isfinite(hi)) or lo == hi or (lo < 0 < hi):
        return []
    ends = [("toward-zero", x / TOWARD_ZERO)]
    if lo >= 0 and hi <= 1:
        ends.append(("toward-one", 1 - (1 - x) / TOWARD_ZERO))
    else:
        ends.append(("away-from-zero", x * AWAY_FROM_ZERO))
    return [(name, y.to(t.dtype)) for name, y in ends]


def ordered_rows(torch, t):
    """Non-decreasing along its last dimension (offsets, cumulative lengths):
    an order the problem needs, which one value everywhere would break."""
    return t.dim() > 0 and t.shape[-1] > 1 and bool((t[..., 1:] >= t[..., :-1]).all())


def distinct_rows(torch, t):
    """No value twice in any row (the last dimension): K distinct experts per
    token, the pages of one sequence."""
    if t.dim() == 0 or t.shape[-1] < 2:
        return False
    s = torch.sort(t.reshape(-1, t.shape[-1]), dim=-1).values
    return not bool((s[:, 1:] == s[:, :-1]).any())


def one_value(torch, t):
    """An integer input skewed to its most frequent values: ("same-rows", y)
    where no row repeats a value (every token routed to the same K experts,
    every sequence reading the same pages: rows stay distinct, as the problem
    needs), else ("one-value", y), every element the most frequent value
    (every sequence one length). (None, why) for an ordered index (offsets),
    whose order the problem needs."""
    if ordered_rows(torch, t):
        return None, "an ordered index keeps its order"
    values, counts = torch.unique(t, return_counts=True)
    if distinct_rows(torch, t):
        top = values[torch.argsort(counts, descending=True, stable=True)[: t.shape[-1]]]
        return "same-rows", top.to(t.dtype).expand(t.shape).contiguous()
    return "one-value", torch.full_like(t, values[counts.argmax()])


def selects(torch, outputs):
    """The reference returns indices (a top-k, a sort): equal values then make
    two correct kernels pick different ones."""
    return any(isinstance(o, torch.Tensor) and not o.is_floating_point() and not o.is_complex() for o in outputs)


def input_variants(torch, inputs, names, guard_ties):
    """(name, index, tensor, why-skipped) for each input that can move on its
    own; the tensor is None where it cannot (why-skipped says so). guard_ties()
    says whether equal values in rows must be avoided (asked only for floats)."""
    out = []
    for k, v in enumerate(inputs):
        if not isinstance(v, torch.Tensor) or v.numel() < 2 or v.dtype == torch.bool or v.is_complex():
            continue
        if v.is_floating_point():
            if v.element_size() < 2:
                continue
            for end, y in domain_ends(torch, v):
                name = "%s(%s)" % (end, names[k])
                if guard_ties() and makes_ties(torch, v, y):
                    out.append((name, k, None, "moving it would make equal values in its rows"))
                else:
                    out.append((name, k, y, None))
        else:
            kind, y = one_value(torch, v)
            if y is None:
                out.append(("one-value(%s)" % names[k], k, None, kind))
            else:
                out.append(("%s(%s)" % (kind, names[k]), k, y, None))
    return out


def send_probe_case(torch, i, j, inputs, name, token, inputs_dir):
    """One distribution case on shape i, case j, with its conditioning twin."""
    probe = {"kind": "distribution", "distribution": name}
    twin, noise = noisy_twin(torch, inputs)
    inputs, twin = host_values(inputs), host_values(twin or [])
    device_idle()  # the files are written without the device's turn
    if noise:
        probe["twin"] = write_values(torch, twin, os.path.join(inputs_dir, "%s_s%d_c%d_n" % (token, i, j)))
        probe["noise"] = noise
    send("case", shape=i, case=j, probe=probe,
         inputs=write_values(torch, inputs, os.path.join(inputs_dir, "%s_s%d_c%d_" % (token, i, j))))


def input_end_cases(torch, problem, token, inputs_dir, seed, next_case):
    """Each input's variants (input_variants) on the smallest graded shape."""
    graded = len(problem.shapes)
    base = min(range(graded), key=lambda i: prod(size_dims(problem, i).values()))
    problem.apply_shape(base)
    device_turn()
    inputs = list(problem.gen_inputs(seed))
    if tensor_bytes(torch, inputs) > PROBE_INPUT_BYTES:
        send("probe_skipped", probe="distribution", shape=base, name=INPUT_ENDS, tried=[], skip="too-large",
             reason="the shape's inputs exceed %d bytes" % PROBE_INPUT_BYTES)
        return
    selecting = []  # the reference run once, and only if a float input can move

    def guard_ties():
        if not selecting:
            selecting.append(selects(torch, reference_outputs(torch, problem, inputs)))
        return selecting[0]

    variants = input_variants(torch, inputs, input_names(problem, len(inputs)), guard_ties)
    if not variants:
        send("probe_skipped", probe="distribution", shape=base, name=INPUT_ENDS, tried=[], skip="no-data",
             reason="no input can move on its own inside its range")
    for name, k, y, why in variants:
        if y is None:
            send("probe_skipped", probe="distribution", shape=base, name=name, tried=[], skip="no-data", reason=why)
            continue
        j = len(CONFIG["cases"]) + next_case.get(base, 0)
        next_case[base] = next_case.get(base, 0) + 1
        device_turn()  # the last case ended with device_idle; its twin and copies are GPU work
        send_probe_case(torch, base, j, inputs[:k] + [y] + inputs[k + 1:], name, token, inputs_dir)


def distribution_cases(torch, problem, token, inputs_dir, seed, kinds, graded):
    """Each distribution on a graded shape, in turn (kind n on shape n mod the
    shape count, every shape at least once), then each input moved on its own
    (input-ends): cases after the graded ones."""
    cases = len(CONFIG["cases"])
    next_case = {}
    per_input = INPUT_ENDS in kinds
    kinds = [k for k in kinds if k != INPUT_ENDS]
    for n in range(max(len(kinds), graded) if kinds else 0):
        i, kind = n % graded, kinds[n % len(kinds)]
        problem.apply_shape(i)
        device_turn()
        inputs = problem.gen_inputs(seed + 1 + n)
        skip = None
        if tensor_bytes(torch, inputs) > PROBE_INPUT_BYTES:
            skip = ("too-large", "the shape's inputs exceed %d bytes" % PROBE_INPUT_BYTES)
        else:
            inputs, changed = redraw(torch, inputs, kind)
            if not changed:
                skip = ("no-data", "no floating-point input to redraw")
            elif inputs is None:
                skip = ("ties", "the redraw would make equal values in the rows of an input")
        if skip:
            send("probe_skipped", probe="distribution", shape=i, name=kind, tried=[], skip=skip[0], reason=skip[1])
            continue
        j = cases + next_case.get(i, 0)
        next_case[i] = next_case.get(i, 0) + 1
        send_probe_case(torch, i, j, inputs, kind, token, inputs_dir)
    if per_input:
        input_end_cases(torch, problem, token, inputs_dir, seed + 1 + max(len(kinds), graded), next_case)


def noisy_twin(torch, inputs):
    """The inputs with every floating tensor of 2 bytes or more per element
    multiplied by 1 + e or 1 - e at random: e = 2^-7 (a rounding of a 16-bit
    dtype) or 2^-16. The reference's output on it says how far rounding alone moves the
    answer at these inputs (the runner's conditioning check); never handed to
    the submission. (None, 0) when there is no such tensor."""
    out, noise = [], 0.0
    for v in inputs:
        if isinstance(v, torch.Tensor) and v.is_floating_point() and v.numel() > 1 and v.element_size() >= 2:
            e = 2.0 ** -7 if v.element_size() == 2 else 2.0 ** -16
            noise = max(noise, e)
            v = (v.float() * (1 + e * (2 * (torch.rand(v.shape, device=v.device) < 0.5).float() - 1))).to(v.dtype)
        out.append(v)
    return (out, noise) if noise else (None, 0.0)


def make_input_probes(torch, problem, token, inputs_dir):
    request = CONFIG.get("probes") or {}
    graded = len(problem.shapes)
    if graded == 0:
        return
    distribution_cases(torch, problem, token, inputs_dir, request.get("seed", 1), request.get("distributions", []),
                       graded)
    if request.get("off_grid_shapes", 0) > 0:
        off_grid_shapes(torch, problem, token, inputs_dir, request.get("seed", 1), request["off_grid_shapes"])


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


def seeded_inputs(problem, job):
    """A timed call's inputs, drawn again from its seed (the problem's shape
    applied): fresh mode's as drawn; rewrite mode's tensors as drawn, written
    into the first case's tensors, whose other values (numbers) stay."""
    inputs = problem.gen_inputs(job["seed"])
    if job.get("mode") == "rewrite":
        base = job.get("base") or []
        inputs = [v if isinstance(v, T.Tensor) or k >= len(base) or "value" not in base[k] else base[k]["value"]
                  for k, v in enumerate(inputs)]
    return inputs


def run_reference(torch):
    problem = Problem(torch)
    send("shapes", shapes=problem.shapes, graded=problem.graded_count, indices=problem.graded_indices)
    # Wait for the device's turn (runs that share a GPU take turns at it).
    if not receive():
        return
    # Names nobody can guess: the reference's files are never ones the
    # submission made (and it cannot write where they go, in the sandbox).
    token = _token_hex(8)
    inputs_dir = os.path.join(CONFIG["xfer"], "in")
    expected_dir = os.path.join(CONFIG["xfer"], "exp")
    mutating_shapes = set()  # shapes whose reference writes into its inputs
    with torch.no_grad():
        for i in range(len(problem.shapes)):
            problem.apply_shape(i)
            # Each seed's inputs are written once. A numeric-stress case is a
            # seed's inputs with every floating tensor of 2 bytes or more per
            # element scaled (fp8 and integers stay): the same files, with the
            # scale applied wherever they are read (read_values).
            written = {}  # seed -> (entries, which of them a stress case scales)
            by_seed = False  # the shape's other seeds are drawn, not written (seeded_case)
            for j, case in enumerate(CONFIG["cases"]):
                if by_seed and case["seed"] not in written and case["scale"] == 1.0:
                    send("case", shape=i, case=j, inputs=[], seed=case["seed"])
                    continue
                if case["seed"] not in written:
                    device_turn()
                    inputs = problem.gen_inputs(case["seed"])
                    scalable = [isinstance(v, torch.Tensor) and v.is_floating_point() and v.element_size() >= 2
                                for v in inputs]
                    if j == 0:
                        # Drawn again from the same seed, bit for bit? Then the
                        # timed calls' fresh and rewrite inputs are drawn again
                        # here from the runner's seeds, never taken from files
                        # the submission's process wrote (docs/runner.md).
                        again = problem.gen_inputs(case["seed"])
                        reproducible = same_values(torch, inputs, again) and len(inputs) == len(again)
                        send("reproducible", shape=i, reproducible=reproducible)
                        del again
                        by_seed = reproducible and tensor_bytes(torch, inputs) > CONFIG.get("seeded_case_bytes", SEEDED_CASE_BYTES)
                    if j == 0 and tensor_bytes(torch, inputs) <= HABIT_CHECK_BYTES:
                        changed, aliased = reference_habits(torch, problem, inputs)
                        if changed:
                            mutating_shapes.add(i)
                        send("reference_habits", shape=i, changes_inputs=changed, aliases_input=aliased)
                    # Copied to host memory under the turn; written without it.
                    inputs = host_values(inputs)
                    device_idle()
                    written[case["seed"]] = (
                        write_values(torch, inputs, os.path.join(inputs_dir, "%s_s%d_c%d_" % (token, i, j))),
                        scalable)
                    del inputs
                entries, scalable = written[case["seed"]]
                if case["scale"] != 1.0:
                    entries = [dict(e, scale=case["scale"]) if s else e for e, s in zip(entries, scalable)]
                send("case", shape=i, case=j, inputs=entries)
        make_input_probes(torch, problem, token, inputs_dir)
    if CONFIG["device"] == "cuda":
        torch.cuda.empty_cache()
    send("generated")
    # The runner sends the path of the check jobs once the submission is done:
    # the expected outputs do not exist while the submission runs.
    line = receive()
    if not line:
        return
    with open_existing(line) as f:
        jobs = _loads(f.read())["jobs"]
    # Jobs on the same input files (a seed's case, its stress cases, bench
    # samples) one after another, so that each file is read once.
    def files_of(job):
        return [e.get("file", "") for e in job.get("inputs") or []]
    jobs.sort(key=lambda job: (job["shape"], files_of(job)))
    models = {}
    cache, cached_files = {}, None
    with torch.no_grad():
        for job in jobs:
            i = job["shape"]
            problem.apply_shape(i)
            # A reference that writes into its inputs gets them fresh from the files every job.
            if files_of(job) != cached_files or i in mutating_shapes:
                cache, cached_files = {}, files_of(job)
            # Files are read, and outputs written, without the device's turn.
            host = {} if "seed" in job else read_files(torch, job["inputs"], cache)
            device_turn()
            if i not in models:
                models = {i: problem.make_model(problem.ref.Model)}
            digest = {}
            if "seed" in job:
                inputs = seeded_inputs(problem, job)
                digest = {"inputs_digest": inputs_digest(inputs)}
            else:
                inputs = read_values(torch, job["inputs"], CONFIG["device"], cache, host)
            del host
            outs = host_values(returned(models[i](*inputs)))
            del inputs
            device_idle()
            entries = write_values(torch, outs, os.path.join(expected_dir, "%s_%s_" % (token, job["id"])))
            send("expected", id=job["id"], outputs=entries, **digest)


# ---------------------------------------------------------------- submission

class Tracer:
    """Call boundaries for libkaudit_tracer.so (tracer/kaudit_tracer.h)."""

    def __init__(self):
        self.lib = None
        path = os.environ.get("CUDA_INJECTION64_PATH")
        if CONFIG.get("trace") and path:
            self.lib = ctypes.CDLL(path)
            self.lib.kaudit_call_begin.argtypes = [ctypes.c_char_p] * 3 + [ctypes.c_longlong]

    def begin(self, phase, shape, mode, index):
        if self.lib:
            self.lib.kaudit_call_begin(phase.encode(), str(shape).encode(), mode.encode(), index)

    def end(self):
        if self.lib:
            self.lib.kaudit_call_end()

    def flush(self):
        if self.lib:
            self.lib.kaudit_tracer_flush()

    def finish(self):
        """The end line the exit handler would write: os._exit skips it."""
        if self.lib:
            self.lib.kaudit_tracer_finish()


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
            if T.numel(x) and not T.equal(T.view(T.reshape(x, (-1,)), T.uint8), T.view(T.reshape(y, (-1,)), T.uint8)):
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


def check_seals(sealed, reported, where):
    """Reports, once each, sealed functions the submission replaced."""
    names = [n for n in replaced(sealed) if n not in reported]
    if names:
        reported.update(names)
        send("tampered", where=where, names=names[:50])


# A shape whose inputs are bigger than this, and drawn again bit for bit from
# a seed, has the correctness cases of its other seeds drawn from their seed
# in the submission's process, and again in the reference's for the expected
# outputs, instead of written to files and read back (gigabytes per seed for
# MoE weights): the first seed's inputs, and its stress cases, stay files. The
# submission's process reports the inputs' fingerprint (inputs_digest), held
# against the reference's as for timed samples. Above INPUTS_BACK_BYTES, so
# such inputs are compared here after the call either way.
SEEDED_CASE_BYTES = 64 << 20  # the runner's RunOptions::seeded_case_bytes says otherwise

# Correctness calls whose inputs are at most this many bytes hand them back
# to the runner after every call (it compares the bytes itself); bigger ones
# are compared here, with functions bound before the submission was imported.
INPUTS_BACK_BYTES = 16 << 20


def load_solution_class():
    """The submission's model class, from its module (imported here)."""
    solution = load_module("solution", CONFIG["solution"])
    # KernelBench names the submission's class ModelNew, KernelBench-Hard
    # Model; submissions in the wild use either with either format.
    names = ("ModelNew", "Model") if CONFIG["format"] == "kernelbench" else ("Model", "ModelNew")
    cls = next((getattr(solution, n) for n in names if isinstance(getattr(solution, n, None), type)), None)
    if cls is None:
        raise AttributeError("the solution defines no class %s or %s" % names)
    return cls


def run_submission(torch):
    send("phase", phase="setup")
    try:
        problem = Problem(torch)
    except BaseException as e:  # noqa: B902 - the problem itself failed
        fail("setup", e)
        return
    bind_recorder(torch)
    sealed = seals(torch)  # before the submission is imported
    tampered = set()
    try:
        cls = load_solution_class()
    except BaseException as e:  # SystemExit and KeyboardInterrupt at import are failures too
        fail("import", e)
        return
    check_seals(sealed, tampered, "import")
    # Import and set-up overlap the reference's input generation; the runner
    # then sends the path of the second half of the configuration.
    send("ready")
    line = receive()
    if not line:
        return
    with open_existing(line) as f:
        CONFIG.update(_loads(f.read()))
    SubmissionCalls(torch, problem, cls, sealed, tampered).run()


class SubmissionCalls:
    """The submission's calls once the runner's configuration is complete:
    each graded shape's correctness cases, its timing modes, then the
    off-grid shapes. Its methods are sealed with the harness's own code
    (seals); slots, so that no method can be shadowed on the instance."""

    __slots__ = ("torch", "device", "outputs_dir", "problem", "cls", "sealed", "tampered", "tracer", "flush_buf",
                 "by_shape")

    def __init__(self, torch, problem, cls, sealed, tampered):
        self.torch, self.problem, self.cls = torch, problem, cls
        self.sealed, self.tampered = sealed, tampered
        self.device = CONFIG["device"]
        self.outputs_dir = os.path.join(CONFIG["xfer"], "out")
        self.tracer = Tracer()
        # Written before every timed call in every mode (the device's L2, or the
        # CPU's last-level cache), so that no mode's inputs start warmer.
        self.flush_buf = None
        if CONFIG["flush_bytes"] > 0:
            self.flush_buf = T.empty(int(CONFIG["flush_bytes"]) // 4, dtype=torch.int32, device=self.device)
        self.by_shape = {}
        for c in CONFIG["correctness"]:
            self.by_shape.setdefault(c["shape"], []).append(c)

    def flush(self):
        if self.flush_buf is not None:
            self.flush_buf.zero_()

    def expect(self, answer, what):
        got = receive()
        if got not in answer:
            raise RuntimeError("the runner did not %s (it said %r)" % (what, got[:80]))
        return got

    def timed(self, model, args, mode, shape, index):
        tracer = self.tracer
        self.flush()
        tracer.begin("timed", shape, mode, index)
        if self.device == "cuda":
            start = T.Event(enable_timing=True)
            end = T.Event(enable_timing=True)
            T.ev_record(start)
            out = model(*args)
            T.ev_record(end)
            # The call ends once the timing event has completed, not once the
            # whole device is idle: work still running then (on side streams
            # the caller never waits for) lands after the call's end in the
            # trace (gpu-work-outside-timing) instead of being hidden by it.
            T.ev_synchronize(end)
            tracer.end()
            T.synchronize()
            ms = T.ev_elapsed(start, end)
        else:
            t0 = _perf_counter()
            out = model(*args)
            ms = (_perf_counter() - t0) * 1e3
            tracer.end()
        return out, ms

    def stream_order_probe(self, model, args, shape):
        """Is the output complete on the caller's stream when forward returns?
        The caller's stream is kept busy first, so work the submission queues
        on another stream after waiting for the caller's is still pending when
        a copy on the caller's stream reads the output; after a full
        synchronize both must be equal. Work the caller's stream never waits
        for is outside any interval its events measure."""
        torch = self.torch
        poison(torch, min(4 * tensor_bytes(torch, args), HOLD_BYTES))
        sync(torch)
        self.tracer.begin("probe", shape, "stream-order", 0)
        spin = getattr(torch.cuda, "_sleep", None)  # a private API: without it, the probe is weaker
        if spin is not None:
            spin(STREAM_PROBE_SLEEP_CYCLES)
        out = model(*args)
        outs = [o for o in returned(out) if isinstance(o, T.Tensor)]
        early = [T.clone(o) for o in outs]  # ordered on the caller's stream only
        sync(torch)
        self.tracer.end()
        differing = sum(1 for a, b in zip(early, outs) if not same_values(torch, [a], [b]))
        send("probe", shape=shape, probe="stream-order", outputs=len(outs), differing=differing)

    def correctness(self, i, model):
        """Every correctness case of shape i: outputs (and inputs, when the
        call may have changed them) go back to the runner as files."""
        checks = OutputChecks(self.torch)
        # Every case's inputs stay alive until the shape is done, so that no
        # two calls of a shape see the same addresses; inputs of several GiB
        # are let go (runs sharing the device would run out of memory), and a
        # cache on addresses is then wrong at the next case instead of at the
        # rewrite mode.
        held, held_bytes = [], 0
        files = {}  # a seed's files, read once for the seed and its stress cases
        for n_case, c in enumerate(self.by_shape.get(i, [])):
            inputs, digest = self.case_inputs(c, files)
            nbytes = tensor_bytes(self.torch, inputs)
            held_bytes += nbytes
            if held_bytes <= HOLD_BYTES:
                held.append(inputs)
            self.correctness_call(i, n_case, c, model, inputs, digest, nbytes, checks)
        send("checks", shape=i, mode="correctness", counts=checks.counts, types=sorted(checks.types))
        return files

    def case_inputs(self, c, files):
        """A correctness case's inputs on the device, and {inputs_digest} when
        drawn here from its seed (SEEDED_CASE_BYTES), not read from files."""
        seeded = "seed" in c
        host = {} if seeded else read_files(self.torch, c["inputs"], files)  # file work, before the device's turn
        device_turn()
        if seeded:
            inputs = self.problem.gen_inputs(c["seed"])
            return inputs, {"inputs_digest": inputs_digest(inputs)}
        return read_values(self.torch, c["inputs"], self.device, files, host), {}

    def correctness_call(self, i, n_case, c, model, inputs, digest, nbytes, checks):
        """One correctness call, its outputs (and changed inputs) sent as files."""
        torch, tracer = self.torch, self.tracer
        seeded = "inputs_digest" in digest
        # Small inputs, and the first case's, go back to the runner after
        # the call, whole; bigger ones are compared here first and go back
        # only when they changed (large tensors are costly to move).
        back = not seeded and (n_case == 0 or nbytes <= INPUTS_BACK_BYTES)
        prefix = os.path.join(self.outputs_dir, "s%d_c%d_" % (i, c["case"]))
        # A stress case's inputs are scaled here, so they are not the
        # reference's files: the runner gets them as the call got them.
        scaled = back and any("scale" in e for e in c["inputs"])
        handed = write_values(torch, inputs, prefix + "b") if scaled else None
        before = None if back else [clone_tensor(torch, v) for v in inputs]
        poison(torch, min(4 * nbytes, HOLD_BYTES))
        tracer.begin("correctness", i, "", c["case"])
        try:
            out = model(*inputs)
            if n_case == 0:
                # A build or compile happens inside forward; what the
                # call launched and is still running now is no build:
                # from here the runner gives the first call a call's
                # limit, so a kernel that never ends holds the device
                # (shared by runs of kaudit audit --jobs) no longer.
                send("returned", shape=i)
            sync(torch)
        except Exception as e:  # noqa: BLE001 - the runner decides: an error in a graded case
            tracer.end()
            send("call", kind="correctness", shape=i, case=c["case"], outputs=[], inputs_after=[],
                 raised=raised_by(e))
            return
        tracer.end()
        outs = checks.check(out, inputs)
        # Copied to host memory under the turn; the files are written without it.
        after = host_values(inputs) if back or not same_values(torch, before, inputs) else []
        # A seeded case has no files of the reference's to compare with:
        # the inputs as the call got them go with the changed ones.
        before = host_values(before) if seeded and after else None
        outs = host_values([o for o in outs if isinstance(o, T.Tensor)])
        out = None
        device_idle()
        if before is not None:
            handed = write_values(torch, before, prefix + "b")
        extra = dict(digest, inputs_before=handed) if handed is not None else digest
        send("call", kind="correctness", shape=i, case=c["case"], outputs=write_values(torch, outs, prefix + "o"),
             inputs_after=write_values(torch, after, prefix + "a") if after else [], **extra)

    def settle_for_mode(self, base):
        """On the CPU, the allocator's pool sized for what a mode keeps alive
        (fresh inputs) and room for outputs."""
        if self.device == "cpu":
            call_bytes = tensor_bytes(self.torch, base)
            settle_host_allocator(self.torch, min(int(CONFIG["keep_alive_bytes"]),
                                                  (CONFIG["warmup"] + CONFIG["trials"]) * call_bytes)
                                  + max(HOST_POOL_MARGIN, 4 * call_bytes))

    def timing(self, i, mode, model, base, first_inputs):
        """One timing mode: warm-up, then each timed call started by the
        runner ("go") and reported at once; the runner says after each call
        whether it checks that call's output ("keep"), so no call knows
        whether it will be checked. Returns the mode's summary, sent once
        every mode is done and the device is shared again (send_summary)."""
        torch, problem, tracer = self.torch, self.problem, self.tracer
        checks = OutputChecks(torch)
        self.settle_for_mode(base)
        send("mode_start", shape=i, mode=mode)
        self.expect(("go",), "start the mode")
        for w in range(CONFIG["warmup"]):
            tracer.begin("warmup", i, mode, w)
            out = model(*base)
            sync(torch)
            tracer.end()
            checks.check(out, base)
        # bench: the benchmark's question is the first case's, every call, so
        # a kept call is checked against those inputs even when the submission
        # changed them in an earlier call (inputs scaled in place, an output
        # written over one), unless the reference itself changes them. fresh
        # and rewrite (and that case): the inputs as the call sees them.
        named = mode == "bench" and i not in CONFIG.get("reference_changes_inputs", [])
        # fresh and rewrite on a shape whose inputs a seed reproduces: the
        # reference draws a kept call's inputs again from its seed, so they
        # are neither copied nor written here.
        seeded = mode != "bench" and i in CONFIG.get("seeded_shapes", [])
        kept, kept_bytes, pending = [], 0, []
        versions_moved = 0
        # Each call's seed comes from the runner only once the call before it
        # returned: no fresh or rewrite input can be known ahead.
        send("warm_done", shape=i, mode=mode)
        seed = int(receive())
        out = outs = None
        for k in range(CONFIG["trials"]):
            call_seed = seed
            if mode == "bench":
                args = base
            elif mode == "fresh":
                args = problem.gen_inputs(seed)
                kept.append(args)  # kept alive so that addresses really differ
                kept_bytes += tensor_bytes(torch, args)
                while kept_bytes > CONFIG["keep_alive_bytes"] and len(kept) > 1:
                    kept_bytes -= tensor_bytes(torch, kept.pop(0))
            else:  # rewrite: new values in the warm-up storage, version counters untouched
                for b, v in zip(base, problem.gen_inputs(seed)):
                    if isinstance(b, T.Tensor):
                        version = b._version
                        T.copy_(b.data, v)
                        versions_moved += b._version != version
                args = base
            before = None if named or seeded else [clone_tensor(torch, v) for v in args]
            digest = inputs_digest(args) if seeded else None
            # Earlier outputs are let go only now, once this call's inputs are
            # made: in every mode the call's own allocations then reuse what
            # an earlier output held (already faulted in, on the CPU; no new
            # segment from the device, on a GPU), so the modes differ in the
            # inputs' identity and contents only, not in the memory state
            # (before, fresh inputs took the freed output's memory and each
            # fresh call paid for new pages: 33x on an honest x * s + b).
            out = outs = None
            checks.let_go()
            sync(torch)
            send("call_ready", shape=i, mode=mode, call=k)
            self.expect(("go",), "start the call")
            out, ms = self.timed(model, args, mode, i, k)
            send("timed", shape=i, mode=mode, call=k, ms=ms)
            outs = checks.check(out, args)
            answer = receive().split()
            if len(answer) != 2 or answer[0] not in ("keep", "next"):
                raise RuntimeError("the runner did not say whether the call is checked")
            seed = int(answer[1])
            if answer[0] == "keep":
                entry = {"call": k, "outputs": [T.clone(o) for o in outs if isinstance(o, T.Tensor)]}
                if seeded:
                    entry["seed"], entry["digest"] = call_seed, digest
                else:
                    entry["named" if named else "inputs"] = first_inputs if named else before
                pending.append(entry)
            del before
        out = outs = None
        del kept
        send("mode_end", shape=i, mode=mode)
        # The kept calls stay on the device (host memory is the scarcer where
        # runs share a machine); their files are written once it is shared again.
        return {"shape": i, "mode": mode, "pending": pending, "counts": checks.counts,
                "types": sorted(checks.types), "versions_moved": versions_moved}

    def send_summary(self, summary):
        torch = self.torch
        i, mode = summary["shape"], summary["mode"]
        sampled = []
        device_turn()  # copied to host memory under a turn; the files are written without it
        for entry in summary["pending"]:
            entry["outputs"] = host_values(entry["outputs"])
            if "inputs" in entry:
                entry["inputs"] = host_values(entry["inputs"])
        device_idle()
        for entry in summary["pending"]:
            prefix = os.path.join(self.outputs_dir, "t_s%d_%s_%d_" % (i, mode, entry["call"]))
            sample = {"call": entry["call"], "outputs": write_values(torch, entry["outputs"], prefix + "o")}
            if "seed" in entry:
                sample["seed"], sample["inputs_digest"] = entry["seed"], entry["digest"]
            else:
                sample["inputs"] = (entry["named"] if "named" in entry
                                    else write_values(torch, entry["inputs"], prefix + "i"))
            sampled.append(sample)
        send("timing", shape=i, mode=mode, samples=sampled, counts=summary["counts"],
             types=summary["types"], versions_moved=summary["versions_moved"])

    def off_grid(self, i):
        """The calls of an off-grid shape (input probes): a model made for it,
        then its cases like any correctness case. A model that refuses the
        shape answers for every case."""
        self.problem.apply_shape(i)
        device_turn()
        with self.torch.no_grad():
            try:
                model = self.problem.make_model(self.cls)
            except Exception as e:  # noqa: BLE001 - evidence for the runner, not an error
                for c in self.by_shape.get(i, []):
                    send("call", kind="correctness", shape=i, case=c["case"], outputs=[], inputs_after=[],
                         raised=raised_by(e))
                return
            self.correctness(i, model)
            del model

    def check_shape(self, i):
        """Graded shape i: its model, its correctness cases, the stream-order
        probe and the op record. Returns (shape, model, first case's inputs),
        kept for the timing modes."""
        torch, problem = self.torch, self.problem
        problem.apply_shape(i)
        with torch.no_grad():
            model = problem.make_model(self.cls)
            files = self.correctness(i, model)
            check_seals(self.sealed, self.tampered, "correctness")
            device_turn()  # correctness() ends with its files, the device set aside
            base = read_values(torch, self.by_shape[i][0]["inputs"], self.device, files)
            del files
            if self.device == "cuda":
                self.stream_order_probe(model, base, i)
            # What ATen runs for the first case's inputs (never in a graded
            # call), then for one untimed call per timing mode on inputs of
            # its kind (fresh: new ones, from a seed of the harness's own):
            # here, while the device is shared, since the recorder costs
            # Python per op.
            record_ops(torch, self.tracer, model, base, i, "first-case")
            for mode in CONFIG["modes"]:
                device_turn()
                record_ops(torch, self.tracer, model,
                           problem.gen_inputs(int(_token_hex(4), 16)) if mode == "fresh" else base, i, mode)
        return i, model, base

    def run(self):
        torch, problem = self.torch, self.problem
        sealed, tampered = self.sealed, self.tampered
        # The off-grid shapes follow the graded ones, numbered on from them.
        graded = len(problem.shapes)
        problem.shapes += [dict(p["values"]) for p in CONFIG.get("probe_shapes", [])]
        phase = "setup"
        try:
            timed_shapes = []  # (shape, model, first case's inputs), kept for the timing modes
            for i in range(graded):
                phase = "correctness"
                send("phase", phase=phase, shape=i)
                timed_shapes.append(self.check_shape(i))
            # Every shape's timing modes back to back: a run sharing the device
            # has it alone from its first mode_start to its next yield point, so
            # the device changes hands once per run, not once per shape and mode.
            summaries = []
            for i, model, base in timed_shapes:
                problem.apply_shape(i)
                with torch.no_grad():
                    for mode in CONFIG["modes"]:
                        phase = "timing"
                        send("phase", phase=phase, shape=i, mode=mode)
                        summaries.append(self.timing(i, mode, model, base, self.by_shape[i][0]["inputs"]))
                        check_seals(sealed, tampered, "timing")
            timed_shapes = model = base = None  # let the models and inputs go
            if self.device == "cuda":
                torch.cuda.empty_cache()
            device_turn()  # the device is shared again (the kept calls' files are written now)
            while summaries:  # each mode's copies go once written
                self.send_summary(summaries.pop(0))
            for i in range(graded, len(problem.shapes)):
                phase = "probe"
                send("phase", phase=phase, shape=i)
                self.off_grid(i)
                check_seals(sealed, tampered, "probe")
            # Encode the records now, while nothing waits: the runner gives the
            # process 5 s to exit after "done", and the exit's finish() then has
            # little left to write.
            self.tracer.flush()
        except BaseException as e:
            fail(phase, e)
            return
        check_seals(sealed, tampered, "end")
        send("done")


def limit_tasks(limit):
    """RLIMIT_NPROC where it is the run's task limit (runner/process/task_limit.h),
    set here, inside the sandbox's user namespace, before anything of the
    problem or the submission runs: hard and soft, so nothing can raise it."""
    if limit:
        import resource
        resource.setrlimit(resource.RLIMIT_NPROC, (limit, limit))


def main():
    global CONFIG, CHANNEL_FD
    with open_existing(sys.argv[1]) as f:
        CONFIG = _loads(f.read())
    CHANNEL_FD = CONFIG["channel_fd"]
    phase = "start"
    try:
        limit_tasks(CONFIG.get("nproc_limit", 0))
        import torch
        # torch._dynamo wraps torch.manual_seed (and more) in its own
        # decorator when it is first imported, which any later torch call
        # may do: imported now, before anything is bound or sealed, that is
        # not taken for the submission's tampering.
        try:
            import torch._dynamo  # noqa: F401
        except Exception:  # noqa: BLE001 - a torch without it
            pass
        if CONFIG["device"] == "cpu":
            redirect_cuda_to_cpu(torch)
        bind_torch(torch)
        bind_torch_wrappers(torch)
        env = {"python": sys.version.split()[0], "torch": torch.__version__}
        if CONFIG["device"] == "cuda":
            env["gpu"] = torch.cuda.get_device_name(0)
            try:
                import triton
                env["triton"] = triton.__version__
            except Exception:
                pass
        send("hello", role=CONFIG["role"], pid=os.getpid(), environment=env)
        if CONFIG["role"] == "reference":
            phase = "reference"
            run_reference(torch)
            send("done")
        else:
            # The runner reads from /proc which pipe this process's channel is
            # while nothing of the submission has run, then answers.
            if receive() == "go":
                run_submission(torch)
    except BaseException as e:
        fail(phase, e)
    if CONFIG.get("role") == "submission":
        Tracer().finish()
    # Skip interpreter teardown: a submission's atexit hooks have nothing to say.
    os._exit(0)


if __name__ == "__main__":
    main()
