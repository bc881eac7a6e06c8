"""The input probes the reference makes: its own habits, off-grid shapes, other distributions
and the input ends (runner/judge/input_probes.h)."""
import math
import os
from kaudit_harness_protocol import CONFIG, device_idle, send
from kaudit_harness_tensors import (clone_tensor, host_values, input_spans, returned, same_values, shares_storage,
    tensor_bytes, write_values)


# Inputs of at most this many bytes are copied once per shape to see whether
# the reference itself writes into them (reference_habits); bigger ones are
# assumed left alone, as nearly every reference leaves them.
HABIT_CHECK_BYTES = 1 << 30


def reference_habits(torch, problem, inputs):
    """Does the reference write into its inputs, or return one of them? A
    submission that does what the reference does is faithful to the problem
    (an in-place ReLU), not a cheat. Returns (indices of inputs it changed,
    whether an output shares an input's storage, its outputs in host memory
    (kept_copy) when it did neither, else None)."""
    model = problem.make_model(problem.ref.Model)
    before = [clone_tensor(torch, v) for v in inputs]
    out = model(*inputs)
    changed = [k for k, (b, v) in enumerate(zip(before, inputs))
               if isinstance(v, torch.Tensor) and not same_values(torch, [b], [v])]
    spans = input_spans(torch, inputs)
    aliased = any(isinstance(o, torch.Tensor) and o.numel() and shares_storage(torch, o, spans) for o in returned(out))
    return changed, aliased, None if changed or aliased else kept_copy(torch, returned(out))


# Outputs the reference computed while it made the inputs (reference_habits
# on a graded shape's first case, try_shape on an off-grid shape), kept in
# host memory up to this many bytes in all: the expected-output job on those
# very inputs is answered from them, not by calling the reference again (10
# of the 60-odd calls of a run on four shapes; upstream's KDA reference, a
# Python loop over time steps, takes 0.3 s a call).
KNOWN_OUTPUT_BYTES = 256 << 20


def kept_copy(torch, outputs):
    """Outputs copied to host memory for KnownOutputs (under the device's
    turn, as every copy is), or None where they could never be kept."""
    return host_values(outputs) if tensor_bytes(torch, outputs) <= KNOWN_OUTPUT_BYTES else None


class KnownOutputs:
    """The reference's outputs by the input files they came from (a case's
    entries: each file, with the scale a stress case applies, or a value)."""

    def __init__(self, torch):
        self.torch, self.outputs, self.bytes = torch, {}, 0

    @staticmethod
    def key(shape, entries):
        return (shape, tuple((e.get("file"), e.get("scale"), repr(e.get("value"))) for e in entries))

    def keep(self, shape, entries, outputs):
        """Outputs (host values) of the reference on the inputs `entries` name."""
        size = 0 if outputs is None else tensor_bytes(self.torch, outputs)
        if outputs is None or not entries or self.bytes + size > KNOWN_OUTPUT_BYTES:
            return
        self.outputs[self.key(shape, entries)] = outputs
        self.bytes += size

    def take(self, job):
        """The kept outputs for a job on the same input files, once; else None."""
        if "seed" in job or not job.get("inputs"):
            return None
        outputs = self.outputs.pop(self.key(job["shape"], job["inputs"]), None)
        if outputs is not None:
            self.bytes -= tensor_bytes(self.torch, outputs)
        return outputs


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


def try_shape(torch, problem, values, seed, base_shapes, base_finite, turn):
    """Appends `values` as a shape and runs the reference on it: (inputs, its
    outputs in host memory (kept_copy), None) when it accepts it, else (None,
    None, why) with the shape taken off again."""
    turn()
    problem.shapes.append(values)
    why = None
    try:
        problem.apply_shape(len(problem.shapes) - 1)
        inputs = problem.gen_inputs(seed)
        if input_shapes(torch, inputs) == base_shapes:
            why = NOT_A_SIZE
        else:
            outputs = reference_outputs(torch, problem, inputs)
            if not all_finite(torch, outputs) and base_finite:
                why = "the reference's output is not finite"
    except Exception as e:  # noqa: BLE001 - the reference refuses this shape
        why = "%s: %s" % (type(e).__name__, str(e)[:300])
    if why is not None:
        problem.shapes.pop()
        return None, None, why
    return inputs, kept_copy(torch, outputs), None


def off_grid_shapes(torch, problem, token, inputs_dir, seed, budget, turn, known):
    """Each size of the smallest graded shape moved to an aligned and then an
    unaligned neighbour, one at a time, while the reference accepts the shape
    and the budget lasts; the others reported with what was tried. The
    reference's outputs on each shape's inputs go to `known` (KnownOutputs)."""
    graded = [dict(s) for s in problem.shapes]
    base = min(range(len(graded)), key=lambda i: prod(size_dims(problem, i).values()))
    dims = size_dims(problem, base)
    problem.apply_shape(base)
    turn()
    base_inputs = problem.gen_inputs(seed)
    base_shapes = input_shapes(torch, base_inputs)
    try:
        base_finite = all_finite(torch, reference_outputs(torch, problem, base_inputs))
    except Exception as e:  # noqa: BLE001 - the reference refuses the probe seed's draw: no shape to try near it
        for dim in dims:
            send("probe_skipped", probe="off-grid", shape=base, name=dim, tried=[], skip="rejected",
                 reason="the reference raised on the base shape's probe inputs: %s: %s" % (type(e).__name__, str(e)[:300]))
        return base
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
                inputs, outputs, reason = try_shape(torch, problem, values, seed, base_shapes, base_finite, turn)
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
                case = off_grid_inputs(torch, problem, inputs, seed, os.path.join(inputs_dir, "%s_s%d_c0_" % (token, index)))
                known.keep(index, case["inputs"], outputs)
                send("case", shape=index, case=0, probe={"kind": "off-grid"}, **case)
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


def off_grid_inputs(torch, problem, inputs, seed, prefix):
    """How an off-grid case message names its inputs: {seed} where they are
    large and the seed draws them again bit for bit at this shape (the
    submission's process draws them, and the reference again for the
    expected output, as for a large graded case: SEEDED_CASE_BYTES), else
    their files. MoE's six off-grid shapes were 0.8 GB of weights each,
    written here and read in both processes."""
    if tensor_bytes(torch, inputs) > CONFIG.get("seeded_case_bytes", SEEDED_CASE_BYTES):
        again = problem.gen_inputs(seed)
        reproducible = len(again) == len(inputs) and same_values(torch, inputs, again)
        del again
        if reproducible:
            return {"inputs": [], "seed": seed}
    return {"inputs": write_values(torch, inputs, prefix)}


# A case whose inputs are bigger than this, and drawn again bit for bit from
# its seed, is drawn from the seed in the submission's process, and again in
# the reference's for the expected output, instead of written to files and
# read back (gigabytes per seed for MoE weights): the graded shapes' other
# seeds (kaudit_harness_reference.py) and the off-grid shapes. The
# submission's process reports the inputs' fingerprint (inputs_digest), held
# against the reference's as for timed samples.
SEEDED_CASE_BYTES = 64 << 20  # the runner's RunOptions::seeded_case_bytes says otherwise


def graded_sizes(graded, dim):
    """The graded shapes' positive integer values of one size."""
    return [s[dim] for s in graded if type(s.get(dim)) is int and s[dim] > 0]


def prod(values):
    p = 1
    for v in values:
        p *= v
    return p


# Rows sorted at once by row_ties at most (about this many elements): a sort
# of a whole input keeps an fp32 copy and int64 indices beside it, 6 GB for
# MoE's smallest weights, and the reference's process peaked at 15 GB on it.
TIES_ROWS_ELEMENTS = 1 << 25


def row_ties(torch, t):
    """How many neighbours in the sorted rows (the last dimension) of t are
    equal, counted over blocks of rows."""
    if t.dim() == 0 or t.shape[-1] < 2:
        return 0
    rows = t.reshape(-1, t.shape[-1])
    step = max(1, TIES_ROWS_ELEMENTS // t.shape[-1])
    ties = 0
    for start in range(0, rows.shape[0], step):
        block = rows[start:start + step]
        v = block if block.dtype in (torch.float32, torch.float64) else block.float()
        s = torch.sort(v, dim=-1).values
        ties += int((s[:, 1:] == s[:, :-1]).sum())
    return ties


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
            if kind is None:  # y says why it cannot move
                out.append(("one-value(%s)" % names[k], k, None, y))
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


def input_end_cases(torch, problem, token, inputs_dir, seed, next_case, turn):
    """Each input's variants (input_variants) on the smallest graded shape."""
    graded = len(problem.shapes)
    base = min(range(graded), key=lambda i: prod(size_dims(problem, i).values()))
    problem.apply_shape(base)
    turn()
    inputs = list(problem.gen_inputs(seed))
    if tensor_bytes(torch, inputs) > PROBE_INPUT_BYTES:
        send("probe_skipped", probe="distribution", shape=base, name=INPUT_ENDS, tried=[], skip="too-large",
             reason="the shape's inputs exceed %d bytes" % PROBE_INPUT_BYTES)
        return
    selecting = []  # the reference run once, and only if a float input can move

    def guard_ties():
        if not selecting:
            try:
                selecting.append(selects(torch, reference_outputs(torch, problem, inputs)))
            except Exception:  # noqa: BLE001 - it refuses these inputs: so it will each case (skipped when judged)
                selecting.append(False)
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
        turn()  # the last case ended with device_idle; its twin and copies are GPU work
        send_probe_case(torch, base, j, inputs[:k] + [y] + inputs[k + 1:], name, token, inputs_dir)


def distribution_cases(torch, problem, token, inputs_dir, seed, kinds, graded, turn):
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
        turn()
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
        input_end_cases(torch, problem, token, inputs_dir, seed + 1 + max(len(kinds), graded), next_case, turn)


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


def make_input_probes(torch, problem, token, inputs_dir, parts, known):
    """The distribution cases, then the off-grid shapes; their time goes to
    `parts` (the reference's Parts) as "probes" and "off_grid": the latter are
    needed only by the submission's last calls, the former among its graded
    ones."""
    request = CONFIG.get("probes") or {}
    graded = len(problem.shapes)
    if graded == 0:
        return
    distribution_cases(torch, problem, token, inputs_dir, request.get("seed", 1), request.get("distributions", []),
                       graded, parts.turn)
    if request.get("off_grid_shapes", 0) > 0:
        parts.start("off_grid")
        off_grid_shapes(torch, problem, token, inputs_dir, request.get("seed", 1), request["off_grid_shapes"], parts.turn,
                        known)
