"""kaudit harness shim: the only Python in kaudit (docs/runner.md).

The runner (`kaudit run`) starts this file in the submission's interpreter,
once as the reference process and once as the submission process. It loads
the problem and the solution, generates inputs, calls the model and hands
every tensor to the runner as a file (one JSON header line, then the raw
bytes). It decides nothing: the runner compares the files itself, outside
this process, so a submission that patches torch cannot change a verdict.

Messages go to the runner as JSON lines on the file descriptor it opened
(config "channel_fd"), never on stdout.
"""
import ctypes
import importlib.util
import json
import os
import sys
import time
import traceback

CONFIG = {}
CHANNEL = None


def send(event, **fields):
    fields["event"] = event
    CHANNEL.write(json.dumps(fields, separators=(",", ":")) + "\n")
    CHANNEL.flush()


def fail(phase, exc):
    tb = traceback.format_exception(type(exc), exc, exc.__traceback__)
    send("error", phase=phase, type=type(exc).__name__, message=str(exc)[:2000],
         traceback="".join(tb)[-4000:])


# ---------------------------------------------------------------- tensor files

def dtype_name(t):
    return str(t.dtype).replace("torch.", "")


def write_tensor(torch, t, path):
    """One JSON header line, then the tensor's bytes in row-major order."""
    if type(t) is not torch.Tensor:
        t = t.as_subclass(torch.Tensor)
    c = t.detach().contiguous().cpu()
    nbytes = c.numel() * c.element_size()
    header = {"dtype": dtype_name(c), "shape": list(c.shape), "nbytes": nbytes}
    with open(path, "wb") as f:
        f.write((json.dumps(header) + "\n").encode())
        if nbytes:  # straight from the tensor's memory, no copy
            f.write((ctypes.c_ubyte * nbytes).from_address(c.data_ptr()))
    return os.path.basename(path)


def read_tensor(torch, path, device):
    with open(path, "rb") as f:
        header = json.loads(f.readline())
        t = torch.empty(header["shape"], dtype=getattr(torch, header["dtype"]))
        nbytes = t.numel() * t.element_size()
        if nbytes != header["nbytes"]:
            raise ValueError("%s: byte count does not match the shape" % path)
        if nbytes and f.readinto((ctypes.c_ubyte * nbytes).from_address(t.data_ptr())) != nbytes:
            raise ValueError("%s: truncated" % path)
    return t.to(device)


def write_values(torch, values, prefix):
    """Inputs and outputs as entries: tensors to files, plain values inline."""
    entries = []
    for k, v in enumerate(values):
        if isinstance(v, torch.Tensor):
            entries.append({"file": write_tensor(torch, v, "%s%d.bin" % (prefix, k))})
        elif v is None or isinstance(v, (bool, int, float, str)):
            entries.append({"value": v})
        else:
            raise TypeError("unsupported value of type %s" % type(v).__name__)
    return entries


def read_values(torch, entries, device, cache=None):
    """Entries back to values; an entry's "scale" (numeric-stress cases) is
    applied as the tensor is read. With a cache (a dict), a file already read
    is not read again; every value returned is still a tensor of its own."""
    xfer = CONFIG["xfer"]
    values = []
    for e in entries:
        if "file" not in e:
            values.append(e["value"])
            continue
        if cache is None:
            t = read_tensor(torch, os.path.join(xfer, e["file"]), device)
        else:
            if e["file"] not in cache:
                cache[e["file"]] = read_tensor(torch, os.path.join(xfer, e["file"]), device)
            t = cache[e["file"]].clone()
        if "scale" in e:
            t = (t.to(torch.float32) * float(e["scale"])).to(t.dtype)
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


class Problem:
    def __init__(self, torch):
        self.torch = torch
        self.ref = load_module("reference", CONFIG["reference"])
        shapes = [{}]
        if CONFIG.get("shapes_file"):
            shapes = list(load_module("shapes", CONFIG["shapes_file"]).SHAPES)
        self.shapes = [dict(s) for s in shapes]

    def apply_shape(self, i):
        # KernelBench-Hard: the shape's values replace the reference module's globals.
        for k, v in self.shapes[i].items():
            setattr(self.ref, k, v)

    def make_model(self, cls):
        torch = self.torch
        init = list(self.ref.get_init_inputs())
        torch.manual_seed(CONFIG["init_seed"])
        model = cls(*init)
        if isinstance(model, torch.nn.Module):
            model = model.to(CONFIG["device"])
            model.eval()
        return model

    def gen_inputs(self, seed):
        torch = self.torch
        torch.manual_seed(seed)
        return [v.to(CONFIG["device"]) if isinstance(v, torch.Tensor) else v for v in self.ref.get_inputs()]


def sync(torch):
    if CONFIG["device"] == "cuda":
        torch.cuda.synchronize()


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


def run_reference(torch):
    problem = Problem(torch)
    send("shapes", shapes=problem.shapes)
    # Wait for the device's turn (runs that share a GPU take turns at it).
    if not sys.stdin.readline():
        return
    xfer = CONFIG["xfer"]
    mutating_shapes = set()  # shapes whose reference writes into its inputs
    with torch.no_grad():
        for i in range(len(problem.shapes)):
            problem.apply_shape(i)
            # Each seed's inputs are written once. A numeric-stress case is a
            # seed's inputs with every floating tensor of 2 bytes or more per
            # element scaled (fp8 and integers stay): the same files, with the
            # scale applied wherever they are read (read_values).
            written = {}  # seed -> (entries, which of them a stress case scales)
            for j, case in enumerate(CONFIG["cases"]):
                if case["seed"] not in written:
                    inputs = problem.gen_inputs(case["seed"])
                    written[case["seed"]] = (
                        write_values(torch, inputs, os.path.join(xfer, "in_s%d_c%d_" % (i, j))),
                        [isinstance(v, torch.Tensor) and v.is_floating_point() and v.element_size() >= 2
                         for v in inputs])
                    if j == 0 and tensor_bytes(torch, inputs) <= HABIT_CHECK_BYTES:
                        changed, aliased = reference_habits(torch, problem, inputs)
                        if changed:
                            mutating_shapes.add(i)
                        send("reference_habits", shape=i, changes_inputs=changed, aliases_input=aliased)
                    del inputs
                entries, scalable = written[case["seed"]]
                if case["scale"] != 1.0:
                    entries = [dict(e, scale=case["scale"]) if s else e for e, s in zip(entries, scalable)]
                send("case", shape=i, case=j, inputs=entries)
    if CONFIG["device"] == "cuda":
        torch.cuda.empty_cache()
    send("generated")
    # The runner sends the path of the check jobs once the submission is done:
    # the expected outputs do not exist while the submission runs.
    line = sys.stdin.readline().strip()
    if not line:
        return
    with open(line) as f:
        jobs = json.load(f)["jobs"]
    # Jobs on the same input files (a seed's case, its stress cases, bench
    # samples) one after another, so that each file is read once.
    def files_of(job):
        return [e.get("file", "") for e in job["inputs"]]
    jobs.sort(key=lambda job: (job["shape"], files_of(job)))
    models = {}
    cache, cached_files = {}, None
    with torch.no_grad():
        for job in jobs:
            i = job["shape"]
            problem.apply_shape(i)
            if i not in models:
                models = {i: problem.make_model(problem.ref.Model)}
            # A reference that writes into its inputs gets them fresh from the files every job.
            if files_of(job) != cached_files or i in mutating_shapes:
                cache, cached_files = {}, files_of(job)
            inputs = read_values(torch, job["inputs"], CONFIG["device"], cache)
            out = models[i](*inputs)
            outs = returned(out)
            entries = write_values(torch, outs, os.path.join(xfer, "exp_%s_" % job["id"]))
            send("expected", id=job["id"], outputs=entries)


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
    try:
        s = t.untyped_storage()
        return s.data_ptr(), s.nbytes()
    except AttributeError:
        s = t.storage()
        return s.data_ptr(), s.size() * s.element_size()


class OutputChecks:
    """Facts about returned objects: plain tensor, alias of an input, reuse."""

    def __init__(self, torch):
        self.torch = torch
        self.counts = {"calls": 0, "not_tensor": 0, "non_plain": 0, "aliases_input": 0, "reused": 0}
        self.types = set()
        self.previous = []

    def check(self, out, inputs):
        torch = self.torch
        outs = returned(out)
        self.counts["calls"] += 1
        ins = input_spans(torch, inputs)
        prev = [storage_range(torch, t) for t in self.previous if isinstance(t, torch.Tensor)]
        for o in outs:
            if not isinstance(o, torch.Tensor):
                self.counts["not_tensor"] += 1
                self.types.add(type(o).__name__)
                continue
            if type(o) is not torch.Tensor:
                self.counts["non_plain"] += 1
                self.types.add(type(o).__name__)
            if o.numel() == 0:
                continue
            if shares_storage(torch, o, ins):
                self.counts["aliases_input"] += 1
            # The previous call's output is still held here: the same storage
            # again means the submission wrote into what it returned before
            # (an output in an input's storage is counted as an alias only).
            elif any(storage_range(torch, o)[0] == b for b, m in prev):
                self.counts["reused"] += 1
        self.previous = outs
        return outs


def poison(torch, nbytes):
    """Leaves freed memory full of 0xFF bytes (NaN for floats) so that an
    output that is never written reads as wrong. Effective with the CUDA
    caching allocator; best effort on the CPU."""
    if not CONFIG.get("poison") or nbytes <= 0:
        return
    blocks = [torch.full((max(nbytes, 1 << 20),), 255, dtype=torch.uint8, device=CONFIG["device"])]
    blocks += [torch.full((1 << k,), 255, dtype=torch.uint8, device=CONFIG["device"]) for k in range(10, 21, 2)]
    sync(torch)
    del blocks


def clone_tensor(torch, v):
    return v.clone() if isinstance(v, torch.Tensor) else v


def same_values(torch, a, b):
    """Bitwise: NaN payloads and -0.0 count as changes."""
    for x, y in zip(a, b):
        if isinstance(x, torch.Tensor):
            if x.shape != y.shape or x.dtype != y.dtype:
                return False
            if x.numel() and not torch.equal(x.reshape(-1).view(torch.uint8), y.reshape(-1).view(torch.uint8)):
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


def run_submission(torch):
    device = CONFIG["device"]
    xfer = CONFIG["xfer"]
    send("phase", phase="setup")
    try:
        problem = Problem(torch)
    except BaseException as e:  # noqa: B902 - the problem itself failed
        fail("setup", e)
        return
    try:
        solution = load_module("solution", CONFIG["solution"])
        # KernelBench names the submission's class ModelNew, KernelBench-Hard
        # Model; submissions in the wild use either with either format.
        names = ("ModelNew", "Model") if CONFIG["format"] == "kernelbench" else ("Model", "ModelNew")
        cls = next((getattr(solution, n) for n in names if isinstance(getattr(solution, n, None), type)), None)
        if cls is None:
            raise AttributeError("the solution defines no class %s or %s" % names)
    except BaseException as e:  # SystemExit and KeyboardInterrupt at import are failures too
        fail("import", e)
        return
    # Import and set-up overlap the reference's input generation; the runner
    # then sends the path of the second half of the configuration.
    send("ready")
    line = sys.stdin.readline().strip()
    if not line:
        return
    with open(line) as f:
        CONFIG.update(json.load(f))
    tracer = Tracer()
    flush_buf = None
    if device == "cuda" and CONFIG["flush_bytes"] > 0:
        flush_buf = torch.empty(int(CONFIG["flush_bytes"]) // 4, dtype=torch.int32, device=device)

    def flush():
        if flush_buf is not None:
            flush_buf.zero_()

    def take_turn(shape, mode):
        """Runs sharing the device (kaudit audit --jobs): timing needs the
        device alone; the runner answers once every other run's GPU work is
        done, and holds theirs back until end_turn."""
        if CONFIG.get("timing_turns"):
            send("turn", shape=shape, mode=mode)
            if sys.stdin.readline().strip() != "go":
                raise RuntimeError("the runner did not give the device's turn")

    def end_turn():
        if CONFIG.get("timing_turns"):
            send("turn_done")

    def timed(model, args, mode, shape, index):
        flush()
        tracer.begin("timed", shape, mode, index)
        if device == "cuda":
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            out = model(*args)
            end.record()
            # The call ends once the timing event has completed, not once the
            # whole device is idle: work still running then (on side streams
            # the caller never waits for) lands after the call's end in the
            # trace (gpu-work-outside-timing) instead of being hidden by it.
            end.synchronize()
            tracer.end()
            torch.cuda.synchronize()
            ms = start.elapsed_time(end)
        else:
            t0 = time.perf_counter()
            out = model(*args)
            ms = (time.perf_counter() - t0) * 1e3
            tracer.end()
        return out, ms

    def stream_order_probe(model, args, shape):
        """Is the output complete on the caller's stream when forward returns?
        The caller's stream is kept busy first, so work the submission queues
        on another stream after waiting for the caller's is still pending when
        a copy on the caller's stream reads the output; after a full
        synchronize both must be equal. Work the caller's stream never waits
        for is outside any interval its events measure."""
        poison(torch, min(4 * tensor_bytes(torch, args), HOLD_BYTES))
        sync(torch)
        tracer.begin("probe", shape, "stream-order", 0)
        spin = getattr(torch.cuda, "_sleep", None)  # a private API: without it, the probe is weaker
        if spin is not None:
            spin(STREAM_PROBE_SLEEP_CYCLES)
        out = model(*args)
        outs = [o for o in returned(out) if isinstance(o, torch.Tensor)]
        early = [o.clone() for o in outs]  # ordered on the caller's stream only
        sync(torch)
        tracer.end()
        differing = sum(1 for a, b in zip(early, outs) if not same_values(torch, [a], [b]))
        send("probe", shape=shape, probe="stream-order", outputs=len(outs), differing=differing)

    by_shape = {}
    for c in CONFIG["correctness"]:
        by_shape.setdefault(c["shape"], []).append(c)
    phase = "setup"
    try:
        for i in range(len(problem.shapes)):
            phase = "correctness"
            send("phase", phase=phase, shape=i)
            problem.apply_shape(i)
            with torch.no_grad():
                model = problem.make_model(cls)
                checks = OutputChecks(torch)
                # Every case's inputs stay alive until the shape is done, so
                # that no two calls of a shape see the same addresses; inputs
                # of several GiB are let go (runs sharing the device would
                # run out of memory), and a cache on addresses is then wrong
                # at the next case instead of at the rewrite mode.
                held, held_bytes = [], 0
                files = {}  # a seed's files, read once for the seed and its stress cases
                for n_case, c in enumerate(by_shape.get(i, [])):
                    inputs = read_values(torch, c["inputs"], device, files)
                    held_bytes += tensor_bytes(torch, inputs)
                    if held_bytes <= HOLD_BYTES:
                        held.append(inputs)
                    # The first case's inputs go back to the runner after the
                    # call, whole; later cases are compared here first and go
                    # back only when they changed (large tensors are costly to move).
                    before = None if n_case == 0 else [clone_tensor(torch, v) for v in inputs]
                    poison(torch, min(4 * tensor_bytes(torch, inputs), HOLD_BYTES))
                    tracer.begin("correctness", i, "", c["case"])
                    out = model(*inputs)
                    sync(torch)
                    tracer.end()
                    outs = checks.check(out, inputs)
                    prefix = os.path.join(xfer, "sub_s%d_c%d_" % (i, c["case"]))
                    after = []
                    if before is None or not same_values(torch, before, inputs):
                        after = write_values(torch, inputs, prefix + "a")
                    del before
                    send("call", kind="correctness", shape=i, case=c["case"],
                         outputs=write_values(torch, [o for o in outs if isinstance(o, torch.Tensor)], prefix + "o"),
                         inputs_after=after)
                send("checks", shape=i, mode="correctness", counts=checks.counts, types=sorted(checks.types))
                del out, outs
                base = read_values(torch, by_shape[i][0]["inputs"], device, files)
                del files
                if device == "cuda":
                    stream_order_probe(model, base, i)
                for mode in CONFIG["modes"]:
                    phase = "timing"
                    send("phase", phase=phase, shape=i, mode=mode)
                    checks = OutputChecks(torch)
                    take_turn(i, mode)
                    for w in range(CONFIG["warmup"]):
                        tracer.begin("warmup", i, mode, w)
                        out = model(*base)
                        sync(torch)
                        tracer.end()
                        checks.check(out, base)
                    n = CONFIG["trials"]
                    samples = set(CONFIG["samples_by_shape"][i])
                    times, pending, kept = [], [], []
                    kept_bytes = 0
                    versions_moved = 0
                    for k in range(n):
                        seed = CONFIG["mode_seeds"][mode] + 1000 * i + k
                        if mode == "bench":
                            args = base
                        elif mode == "fresh":
                            args = problem.gen_inputs(seed)
                            kept.append(args)  # kept alive so that addresses really differ
                            kept_bytes += tensor_bytes(torch, args)
                            while kept_bytes > CONFIG["keep_alive_bytes"] and len(kept) > 1:
                                kept_bytes -= tensor_bytes(torch, kept.pop(0))
                        else:  # rewrite: new values in the warm-up storage, version counters untouched
                            new = problem.gen_inputs(seed)
                            for b, v in zip(base, new):
                                if isinstance(b, torch.Tensor):
                                    before = b._version
                                    b.data.copy_(v)
                                    versions_moved += b._version != before
                            args = base
                        entry = None
                        if k in samples:
                            # bench: the benchmark's question is the first case's, every call, so the
                            # answer is checked against those inputs even when the submission changed
                            # them in an earlier call (inputs scaled in place, an output written over
                            # one), unless the reference itself changes them. fresh and rewrite (and
                            # that case): the inputs as the call sees them, copied on the device now
                            # and written once the device's turn is over.
                            if mode == "bench" and i not in CONFIG.get("reference_changes_inputs", []):
                                entry = {"call": k, "named": by_shape[i][0]["inputs"]}
                            else:
                                entry = {"call": k, "inputs": [clone_tensor(torch, v) for v in args]}
                        sync(torch)
                        out, ms = timed(model, args, mode, i, k)
                        times.append(ms)
                        outs = checks.check(out, args)
                        if entry is not None:
                            entry["outputs"] = [o.clone() for o in outs if isinstance(o, torch.Tensor)]
                            pending.append(entry)
                    del kept
                    end_turn()
                    sampled = []
                    for entry in pending:
                        prefix = os.path.join(xfer, "t_s%d_%s_%d_" % (i, mode, entry["call"]))
                        sampled.append({"call": entry["call"],
                                        "inputs": (entry["named"] if "named" in entry
                                                   else write_values(torch, entry["inputs"], prefix + "i")),
                                        "outputs": write_values(torch, entry["outputs"], prefix + "o")})
                    del pending
                    send("timing", shape=i, mode=mode, times_ms=times, samples=sampled,
                         counts=checks.counts, types=sorted(checks.types), versions_moved=versions_moved)
                del model, base, held
            if device == "cuda":
                torch.cuda.empty_cache()
        # Encode the records now, while nothing waits: the runner gives the
        # process 5 s to exit after "done", and the exit's finish() then has
        # little left to write.
        tracer.flush()
    except BaseException as e:
        fail(phase, e)
        return
    send("done")


def main():
    global CONFIG, CHANNEL
    with open(sys.argv[1]) as f:
        CONFIG = json.load(f)
    CHANNEL = os.fdopen(CONFIG["channel_fd"], "w", buffering=1)
    phase = "start"
    try:
        import torch
        if CONFIG["device"] == "cpu":
            redirect_cuda_to_cpu(torch)
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
            run_submission(torch)
    except BaseException as e:
        fail(phase, e)
    CHANNEL.flush()
    if CONFIG.get("role") == "submission":
        Tracer().finish()
    # Skip interpreter teardown: a submission's atexit hooks have nothing to say.
    os._exit(0)


if __name__ == "__main__":
    main()
