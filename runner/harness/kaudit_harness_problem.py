"""The problem as both processes load it: its module, shapes, inputs drawn from a seed, the
reference model and its state dict; and the CPU stand-in for CUDA."""
import contextlib
import importlib.util
import numbers
import os
import sys
from kaudit_harness_protocol import CONFIG, send
from kaudit_harness_seals import T
from kaudit_harness_probes import prod, size_dims
from kaudit_harness_tensors import same_values


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
        for key, v in self.shapes[i].items():
            k = self.global_of(key)
            if k not in defaults and hasattr(self.ref, k):
                defaults[k] = getattr(self.ref, k)
            setattr(self.ref, k, v)

    def global_of(self, key):
        """The reference module's global a shape's key sets: its own name, else
        the one global that is that name in other case (upstream's paged
        attention names its shapes' sizes batch, seq_len... and its globals
        BATCH, SEQ_LEN; its check.py maps one to the other). Set by its own
        name, every graded shape drew the default shape's inputs. Two globals
        that differ only in case leave the key as it is: which is meant is not
        known."""
        if not isinstance(key, str) or hasattr(self.ref, key):
            return key
        same = [k for k in vars(self.ref) if not k.startswith("_") and k.lower() == key.lower()]
        return same[0] if len(same) == 1 else key

    def make_model(self, cls):
        torch = self.torch
        init = list(self.ref.get_init_inputs())
        if cls is self.ref.Model:
            model = self.reference_model(init)
        else:
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
        ref = self.reference_model(init)
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

    def reference_model(self, init):
        """The reference's Model under the initial seed. For KernelBench-Hard on
        a GPU it is made with the device as torch's default: its weights are
        drawn there, in both processes alike (this process's expected outputs,
        the other's state dict), as get_inputs' values are. fp8's Model draws
        a 4096 x 14336 weight on the host, several times a shape (issue 27).
        KernelBench's models are not: there the submission's Model, made on
        the host as its evaluator makes it, must draw the same weights. A
        Model that cannot be made on the device is made on the host."""
        if CONFIG["format"] == "kernelbench_hard" and CONFIG["device"] != "cpu":
            try:
                with self.drawing_on_device():
                    T.manual_seed(CONFIG["init_seed"])
                    return self.ref.Model(*init)
            except Exception:  # noqa: BLE001 - made on the host below, from the same seed
                pass
        T.manual_seed(CONFIG["init_seed"])
        return self.ref.Model(*init)

    @contextlib.contextmanager
    def drawing_on_device(self):
        """The device as torch's default, its math settings fixed (a
        submission may change them: TF32 is a common honest choice), so that
        both processes draw the same bytes from a seed even where the
        drawing multiplies."""
        torch = self.torch
        cudnn = torch.backends.cudnn
        saved = (torch.get_float32_matmul_precision(), cudnn.allow_tf32)
        try:
            torch.set_float32_matmul_precision("highest")
            cudnn.allow_tf32 = False
            with T.device(CONFIG["device"]):
                yield
        finally:
            torch.set_float32_matmul_precision(saved[0])
            cudnn.allow_tf32 = saved[1]

    def gen_inputs(self, seed):
        """A case's inputs, drawn from its seed in either process alike. On a
        GPU get_inputs runs with the device as torch's default, so what it
        makes without naming a device is drawn there: drawn on the host
        (torch.rand of 4096 x 4096, then a copy), fp8's inputs took 0.1 s a
        timed call, 14 s of each fresh and rewrite mode (issue 27). A
        get_inputs that needs host tensors (numpy, torch 1.x) raises there
        and is drawn on the host, as upstream draws it.
        A generator that ignores its seed (ignores_seed) has its draw's floating
        tensors permuted from the seed, but for the first correctness seed's."""
        values = self.draw(seed)
        first = CONFIG.get("first_seed")
        if first is not None and seed != first and self.ignores_seed(seed, values, first):
            values = permuted_floats(values, seed)
        return values

    def draw(self, seed, bounds=None):
        """get_inputs() under the seed, as the problem draws it; a bounds
        seed's (CONFIG "bounds_seeds") with its integer draws at their ends
        (integers_at_their_bounds)."""
        if bounds is None:
            bounds = seed in CONFIG.get("bounds_seeds", ())
        device = CONFIG["device"]
        if device != "cpu":
            try:
                with self.drawing_on_device(), integers_at_their_bounds(self.torch, seed, bounds):
                    T.manual_seed(seed)
                    values = self.ref.get_inputs()
                return [T.to(v, device) if isinstance(v, T.Tensor) else v for v in values]
            except Exception:  # noqa: BLE001 - drawn on the host below, from the same seed
                pass
        with integers_at_their_bounds(self.torch, seed, bounds):
            T.manual_seed(seed)
            values = self.ref.get_inputs()
        return [T.to(v, device) if isinstance(v, T.Tensor) else v for v in values]

    def ignores_seed(self, seed, values, first):
        """Whether the generator draws the same inputs whatever the seed at the
        current shape (upstream's KDA seeds torch with 0 inside get_inputs):
        then every case and every fresh or rewrite call would be the bench
        call's inputs again, and a cache keyed on their values or their address
        would pass for work. Decided once a shape, alike in both processes: a
        draw from another seed against the first correctness seed's (a plain
        draw: a bounds seed's differs wherever the problem draws integers)."""
        known = self.__dict__.setdefault("seedless", {})
        if self.current not in known:
            base = self.draw(first, bounds=False)
            if seed in CONFIG.get("bounds_seeds", ()):
                values = self.draw(seed, bounds=False)
            known[self.current] = len(base) == len(values) and same_values(self.torch, base, values)
        return known[self.current]


# A bounds case's share of each integer draw's elements put at the range's low
# end, and as many at its high end.
BOUNDS_SHARE = 1 / 3


@contextlib.contextmanager
def integers_at_their_bounds(torch, seed, on=True):
    """While on, each torch.randint and torch.randint_like call, and each
    Tensor.random_ call given its range's end, puts a third of
    the elements it drew at the low end of its range and a third at the high
    end, its first element at the high end and its last at the low end (kept
    in case the problem overwrites the first, as the paged-attention problem
    sets the first sequence's length). Every value is one the problem's own
    draw can return, so a correct kernel must take it, but random draws rarely
    hit it: a kernel wrong only on sequences of one token passed 12 random
    cases. Which elements is drawn from the seed on a generator of its own, so
    both processes draw the same inputs and the problem's own draws after it
    stay as they were."""
    if not on:
        yield
        return
    saved = {name: getattr(torch, name) for name in ("randint", "randint_like") if hasattr(torch, name)}
    saved_random_ = torch.Tensor.random_
    calls = [0]

    def at_bounds(out, span):
        if span is None or not isinstance(out, torch.Tensor) or out.numel() == 0 or span[1] - 1 < span[0]:
            return out
        calls[0] += 1
        generator = T.Generator(device=out.device)
        generator.manual_seed(seed * 7919 + calls[0])
        u = torch.rand(out.shape, generator=generator, device=out.device)
        flat = T.view(u, (-1,))
        if T.numel(flat) >= 2:
            flat[0], flat[-1] = 1.0, 0.0
        out.masked_fill_(u >= 1 - BOUNDS_SHARE, span[1] - 1)
        out.masked_fill_(u < BOUNDS_SHARE, span[0])
        return out

    def randint(*args, **kwargs):
        return at_bounds(saved["randint"](*args, **kwargs), randint_span(args, kwargs))

    def randint_like(*args, **kwargs):
        return at_bounds(saved["randint_like"](*args, **kwargs), randint_span(args[1:], kwargs))

    def random_(self, *args, **kwargs):
        return at_bounds(saved_random_(self, *args, **kwargs), random_span(args, kwargs))

    wrappers = {"randint": randint, "randint_like": randint_like}
    try:
        for name in saved:
            setattr(torch, name, wrappers[name])
        torch.Tensor.random_ = random_
        yield
    finally:
        for name, fn in saved.items():
            setattr(torch, name, fn)
        torch.Tensor.random_ = saved_random_


def randint_span(args, kwargs):
    """(low, high) of a torch.randint call's arguments, high excluded:
    randint(high, size), randint(low, high, size), either by keyword; None
    where they are not plain integers."""
    ints = [a for a in args if isinstance(a, numbers.Integral) and not isinstance(a, bool)]
    if "high" in kwargs:
        low, high = kwargs.get("low", ints[0] if ints else 0), kwargs["high"]
    elif len(ints) >= 2:
        low, high = ints[0], ints[1]
    elif len(ints) == 1:
        low, high = kwargs.get("low", 0), ints[0]
    else:
        return None
    return integer_span(low, high)


def random_span(args, kwargs):
    """(low, high) of a Tensor.random_ call's arguments, high excluded:
    random_(to), random_(from, to), either by keyword; None without an end
    (the dtype's whole range, whose ends no problem means)."""
    low, high = kwargs.get("from", 0), kwargs.get("to")
    if len(args) >= 2:
        low, high = args[0], args[1]
    elif len(args) == 1 and high is None:
        high = args[0]
    elif len(args) == 1:
        low = args[0]
    return integer_span(low, high)


def integer_span(low, high):
    """(low, high) as ints where both are plain integers (not bools), else None."""
    if not all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in (low, high)):
        return None
    return int(low), int(high)


def permuted_floats(values, seed):
    """Each floating tensor's elements in an order drawn from `seed` (its own
    generator, so torch's global one is left alone), by their bytes: the same
    values in other places, as the problem would draw them, and alike in both
    processes. Other values stay."""
    out = []
    for v in values:
        if isinstance(v, T.Tensor) and T.is_floating_point(v) and T.numel(v) > 1:
            generator = T.Generator(device=v.device)
            generator.manual_seed(seed)
            flat = T.reshape(v, (-1,))
            width = T.element_size(v)
            raw = T.view(flat, T.uint8)
            order = T.randperm(T.numel(flat), generator=generator, device=v.device)
            rows = T.reshape(raw, (-1, width))
            v = T.reshape(T.view(T.reshape(T.index_select(rows, 0, order), (-1,)), v.dtype), v.shape)
        out.append(v)
    return out
