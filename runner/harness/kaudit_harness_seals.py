"""What the harness relies on, bound before the submission is imported (T), and the seals that
report any of it, or any of the harness's own code, replaced afterwards (docs/threat-model.md)."""
import json
import os
import sys
import time
import types
from kaudit_harness_protocol import CONFIG, send


class Ops:
    """Torch functions and tensor methods the harness uses, bound from torch's
    C types before the submission is imported (bind_torch)."""


T = Ops()


def bind_torch(torch):
    # As torch.Tensor has them now, C or Python, before the submission runs.
    for name in ("clone", "contiguous", "detach", "cpu", "view", "reshape", "numel", "element_size",
                 "data_ptr", "copy_", "to", "is_floating_point", "as_subclass", "narrow"):
        setattr(T, name, getattr(torch.Tensor, name))
    # torch 1.x has typed storages only.
    T.storage = getattr(torch.Tensor, "untyped_storage", None) or torch.Tensor.storage
    for name in ("equal", "empty", "full", "manual_seed", "randperm", "index_select", "Generator"):
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
        T.empty_cache = torch.cuda.empty_cache


# The harness's own modules are the entry file (run as __main__) and these.
MODULE_PREFIX = "kaudit_harness_"


def harness_modules():
    return [m for name, m in list(sys.modules.items())
            if m is not None and (name == "__main__" or name.startswith(MODULE_PREFIX))]


def seals(torch, extra=()):
    """(owner, name, object) for every function the harness relies on, and
    every function of the harness itself: none may be replaced once the
    submission runs. `extra`: more of them (the op recorder's)."""
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
    out += list(extra)
    out += [(T, name, obj) for name, obj in list(vars(T).items())]
    functions = []
    for module in harness_modules():
        # Every global of each harness module (its functions, classes, the
        # modules and names it imported), and the code inside each of its
        # functions and methods: a frame walk can reach them without
        # touching any module.
        names = [(name, obj) for name, obj in list(vars(module).items()) if not name.startswith("__")]
        out += [(module, name, obj) for name, obj in names]
        functions += [obj for _, obj in names if isinstance(obj, types.FunctionType)]
        for cls in [obj for _, obj in names if isinstance(obj, type) and obj.__module__ == module.__name__]:
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


def check_seals(sealed, reported, where):
    """Reports, once each, sealed functions the submission replaced."""
    names = [n for n in replaced(sealed) if n not in reported]
    if names:
        reported.update(names)
        send("tampered", where=where, names=names[:50])
