"""The ATen op record: what the submission's untimed calls ran, op by op (runner/judge/aten_ops.h)."""
import sys
import types
from time import perf_counter_ns
from kaudit_harness_protocol import send
from kaudit_harness_seals import code_seals, T
from kaudit_harness_tensors import sync


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
        self.work = {}  # op name -> [tensor elements in and out, ns]: what each op's calls did
        self.input_elements = 0  # of the recorded call's inputs: calls on inputs of other sizes do other work
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
    """The recording mode's __torch_dispatch__: count the op, run it, and
    keep what it did: the elements of the tensors it read and returned (a
    structural measure, the same on every machine) and its time (on the CPU
    the op's work; on a GPU its launch)."""
    kwargs = kwargs or {}
    if not RECORD.recording:
        RECORD.seen_outside += 1
        return func(*args, **kwargs)
    name = str(func)[:200]
    RECORD.ops[name] = RECORD.ops.get(name, 0) + 1
    start = perf_counter_ns()
    out = func(*args, **kwargs)
    ns = perf_counter_ns() - start
    work = RECORD.work.setdefault(name, [0, 0])
    work[0] += tensor_elements(args) + tensor_elements(kwargs.values()) + tensor_elements((out,))
    work[1] += ns
    return out


def tensor_elements(values):
    """The elements of the tensors among `values`, and in lists or tuples of them (cat's inputs, an op's outputs)."""
    n = 0
    for v in values:
        for t in v if isinstance(v, (list, tuple)) else (v,):
            if isinstance(t, T.Tensor):
                try:
                    n += T.numel(t)
                except Exception:  # noqa: BLE001 - a tensor without a size (nested): not counted
                    pass
    return n


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
    RECORD.input_elements = tensor_elements(args)
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
    send("ops", shape=shape, phase=phase, calls=RECORD.calls, ops=RECORD.ops, work=RECORD.work,
         input_elements=RECORD.input_elements, gaps=RECORD.gaps)
    RECORD.ops, RECORD.work, RECORD.calls, RECORD.gaps = {}, {}, 0, []
