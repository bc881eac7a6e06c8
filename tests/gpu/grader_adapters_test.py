#!/usr/bin/env python3
"""tests/gpu/grader_adapters/PROBLEM.py give the corpus's solutions upstream
KernelBench-Hard's interface. Each adapter is appended to its corpus
problem's reference (its Model renamed ModelNew, the interface every corpus
solution has), as tests/gpu/grader_compare.sh appends it to a solution;
upstream's reference Model and the adapted Model are made at a small shape
on the CPU, the reference's state dict is loaded into the adapted one
strictly, as upstream's check.py does, and both run on inputs from
upstream's own get_inputs: the outputs must agree within bf16's rounding.
A wrong mapping (weights transposed, gate and up swapped, rows sent to the
wrong expert, a missing scale) moves the outputs by their whole size.

Run with Debian's /usr/bin/python3 (python3-torch, CPU). Exits 77 (skipped)
without torch or without ../shared/upstream/kernelbench-hard (never part of
the project)."""
import importlib.util
import os
import re
import sys
import types
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
UPSTREAM = os.path.join(ROOT, "..", "shared", "upstream", "kernelbench-hard")
ADAPTERS = os.path.join(ROOT, "tests", "gpu", "grader_adapters")

if not os.path.isdir(UPSTREAM):
    print("SKIPPED: no upstream tree at %s" % os.path.normpath(UPSTREAM))
    sys.exit(77)
try:
    import torch
except ImportError:
    print("SKIPPED: no torch for %s (apt-get install python3-torch)" % sys.executable)
    sys.exit(77)


def rearrange(tensor, pattern, **axis_sizes):
    """What upstream's KDA reference asks of einops.rearrange, for an
    interpreter without einops (Debian's has none): axes split, merged,
    reordered, and literal 1s added on the right."""
    def parse(side):
        return [[name] if name else group.split()
                for group, name in re.findall(r"\(([^)]*)\)|(\S+)", side)]
    left, right = (parse(side) for side in pattern.split("->"))
    sizes = dict(axis_sizes)
    for group, length in zip(left, tensor.shape):
        unknown = [name for name in group if name not in sizes]
        known = 1
        for name in group:
            known *= sizes.get(name, 1)
        if unknown:
            sizes[unknown[0]] = length // known
    names = [name for group in left for name in group]
    split = tensor.reshape([sizes[name] for name in names])
    order = [names.index(name) for group in right for name in group if name != "1"]
    moved = split.permute(order)
    shape = []
    for group in right:
        size = 1
        for name in group:
            size *= 1 if name == "1" else sizes[name]
        shape.append(size)
    return moved.reshape(shape)


if importlib.util.find_spec("einops") is None:
    stand_in = types.ModuleType("einops")
    stand_in.rearrange = rearrange
    sys.modules["einops"] = stand_in


def upstream_reference(problem, shape):
    """Upstream's reference module with its shape shims set, as check.py sets them."""
    path = os.path.join(UPSTREAM, "problems-h100", problem, "reference.py")
    spec = importlib.util.spec_from_file_location("upstream_" + problem.replace("-", "_"), path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name, value in shape.items():
        setattr(module, name, value)
    return module


def adapted_module(upstream_problem, corpus_problem):
    """The corpus problem's reference as a solution (ModelNew) with the
    adapter appended, the two texts joined as grader_compare.sh joins them."""
    with open(os.path.join(ROOT, "kernels", "problems", corpus_problem, "reference.py")) as f:
        reference_text = f.read()
    solution_text, renamed = re.subn(r"^class Model\(", "class ModelNew(", reference_text, flags=re.M)
    assert renamed == 1, "kernels/problems/%s/reference.py: no one class Model" % corpus_problem
    with open(os.path.join(ADAPTERS, upstream_problem + ".py")) as f:
        adapter_text = f.read()
    module = types.ModuleType("adapted_" + corpus_problem)
    module.__file__ = os.path.join(ADAPTERS, upstream_problem + ".py")
    exec(compile(solution_text + adapter_text, module.__file__, "exec"), module.__dict__)
    return module


def models(upstream_problem, corpus_problem, shape, seed=0, state_scales=None):
    """Upstream's reference model and the adapted one holding its state dict;
    `state_scales` (name: factor) scales the reference's parameters first."""
    reference = upstream_reference(upstream_problem, shape)
    init_args = reference.get_init_inputs()
    torch.manual_seed(seed)
    reference_model = reference.Model(*init_args).eval()
    with torch.no_grad():
        for name, factor in (state_scales or {}).items():
            reference_model.get_parameter(name).mul_(factor)
    adapted = adapted_module(upstream_problem, corpus_problem).Model(*init_args).eval()
    adapted.load_state_dict(reference_model.state_dict(), strict=True)
    return reference, reference_model, adapted


def run(model, inputs):
    with torch.no_grad():
        return model(*inputs)


class GraderAdapters(unittest.TestCase):
    def assertClose(self, want, got, rtol=2e-2, atol_of_largest=1e-2):
        """Within bf16's rounding of a few steps: rtol, and an atol that is a
        share of the output's largest value (a sum of small products is near
        zero wherever its terms cancel, and its relative error is large
        there). The type, shape and dtype are upstream's check's too."""
        self.assertIs(type(got), torch.Tensor)
        self.assertEqual(got.shape, want.shape)
        self.assertEqual(got.dtype, want.dtype)
        want, got = want.float(), got.float()
        atol = atol_of_largest * want.abs().max().item()
        worst = (got - want).abs().max().item()
        self.assertTrue(torch.allclose(got, want, rtol=rtol, atol=atol),
                        "largest difference %.3g (output's largest value %.3g)" % (worst, want.abs().max().item()))
        # The same tolerance must turn away a wrong answer of the right size:
        # the reference's own output moved over by one element.
        wrong = want.reshape(-1).roll(1).reshape(want.shape)
        self.assertFalse(torch.allclose(wrong, want, rtol=rtol, atol=atol), "the tolerance takes anything")

    # Upstream's MoE reference multiplies in bf16, and CPU torch 1.13 sums
    # bf16 products in bf16: 1 to 3% of the largest output at H = 64 (the
    # corpus's reference sums in fp32). A wrong mapping is off by 70% or more.
    BF16_SUMS_TOLERANCE = {"rtol": 4e-2, "atol_of_largest": 4e-2}
    # Upstream's weights (std 0.02) times 50: gates of order 1, where SiLU is
    # far from linear and swapping gate and up shows (at std 0.02 SiLU is
    # nearly x / 2, and silu(gate) * up nearly silu(up) * gate).
    MOE_WEIGHT_SCALES = {"W_gate": 50.0, "W_up": 50.0}

    def test_sonic_moe_swiglu(self):
        shape = {"T_total": 24, "H": 64, "I": 32, "E": 4, "K": 2}
        reference, reference_model, adapted = models("06_sonic_moe_swiglu", "moe_swiglu", shape,
                                                     state_scales=self.MOE_WEIGHT_SCALES)
        torch.manual_seed(1)
        hidden, offsets = reference.get_inputs()
        self.assertClose(run(reference_model, [hidden, offsets]), run(adapted, [hidden, offsets]),
                         **self.BF16_SUMS_TOLERANCE)
        # Ragged groups, an empty expert among them (as upstream's property
        # check moves rows between experts): each row's expert is read off
        # the offsets, not assumed even.
        counts = torch.tensor([13, 0, 30, 5], dtype=torch.int32)
        self.assertEqual(int(counts.sum()), hidden.shape[0])
        ragged = torch.zeros_like(offsets)
        ragged[1:] = torch.cumsum(counts, 0)
        self.assertClose(run(reference_model, [hidden, ragged]), run(adapted, [hidden, ragged]),
                         **self.BF16_SUMS_TOLERANCE)
        # The weights are re-laid out once, not on every call...
        relaid = adapted._w13
        run(adapted, [hidden, offsets])
        self.assertIs(adapted._w13, relaid)
        # ...and again after another state dict is loaded into the same model.
        _, other_reference_model, _ = models("06_sonic_moe_swiglu", "moe_swiglu", shape, seed=7,
                                             state_scales=self.MOE_WEIGHT_SCALES)
        adapted.load_state_dict(other_reference_model.state_dict(), strict=True)
        self.assertClose(run(other_reference_model, [hidden, offsets]), run(adapted, [hidden, offsets]),
                         **self.BF16_SUMS_TOLERANCE)

    def test_kda_cutlass(self):
        # Two chunks of 64 (the state crosses a chunk boundary), two batches, two heads.
        shape = {"B": 2, "T": 128, "H": 2, "K": 32, "V": 16, "CHUNK_SIZE": 64}
        reference, reference_model, adapted = models("02_kda_cutlass", "kda_chunked", shape)
        inputs = reference.get_inputs()
        self.assertClose(run(reference_model, inputs), run(adapted, inputs))

    def test_topk_bitonic(self):
        shape = {"batch": 4, "n": 256, "k": 8}
        reference, reference_model, adapted = models("05_topk_bitonic", "topk", shape)
        torch.manual_seed(1)
        inputs = reference.get_inputs()
        want_values, want_indices = run(reference_model, inputs)
        got_values, got_indices = run(adapted, inputs)
        self.assertTrue(torch.equal(got_values, want_values))
        self.assertTrue(torch.equal(got_indices, want_indices))

    def test_fp8_gemm(self):
        if not hasattr(torch, "float8_e4m3fn"):
            self.skipTest("torch %s has no float8_e4m3fn: upstream's fp8 reference cannot be made here"
                          % torch.__version__)
        shape = {"M": 16, "N": 32, "K": 64}
        reference, reference_model, adapted = models("01_fp8_gemm", "fp8_gemm", shape)
        torch.manual_seed(1)
        inputs = reference.get_inputs()
        # Upstream's fp8 reference multiplies in bf16, as the MoE one does.
        self.assertClose(run(reference_model, inputs), run(adapted, inputs), **self.BF16_SUMS_TOLERANCE)


if __name__ == "__main__":
    unittest.main(verbosity=2)
