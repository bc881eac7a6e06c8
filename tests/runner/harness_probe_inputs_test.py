"""The inputs the distribution probes make (runner/harness/kaudit_harness_probes.py: redraw,
input_variants) are inputs like the ones they replace: for every input a tensor of its shape and
dtype, or nothing with a reason. One of them once handed both processes a string for an ordered index
(upstream's MoE expert_offsets): the reference raised, and a clean kernel was called a cheat.

Checked on inputs of every structure the probes tell apart, and on KernelBench-Hard's own problems at
their smallest shape where ../shared/upstream is present (a visible note otherwise).
Run with an interpreter that has torch (Debian's /usr/bin/python3 with python3-torch); exits 77
(skipped) without one."""
import importlib.util
import os
import unittest

from harness_test_torch import HERE, torch
import kaudit_harness_probes as probes

UPSTREAM = os.environ.get("KAUDIT_UPSTREAM",
                          os.path.join(HERE, "..", "..", "..", "shared", "upstream", "kernelbench-hard", "problems-h100"))
REDRAWS = ["permuted", "shifted", "scaled", "heavy-tailed", "special"]
REDRAW_ELEMENTS = 1 << 20


def structures():
    """(name, inputs) for each structure the probes tell apart."""
    torch.manual_seed(7)
    offsets = torch.zeros(9, dtype=torch.int32)
    offsets[1:] = torch.cumsum(torch.full((8,), 32, dtype=torch.int32), 0)
    experts = torch.stack([torch.randperm(16)[:4] for _ in range(64)]).int()
    return [
        ("mixed-sign data", [torch.randn(32, 48)]),
        ("one-sign log-decay", [-torch.rand(4, 64, 8)]),
        ("gate in [0, 1]", [torch.rand(128)]),
        ("bf16 data and fp32 scale", [torch.randn(64, 32).bfloat16(), torch.rand(64) + 0.5]),
        ("ordered offsets", [torch.randn(256, 16), offsets, torch.randn(8)]),
        ("ordered block table rows", [torch.arange(64, dtype=torch.int32).reshape(8, 8)]),
        ("distinct experts per token", [torch.randn(64, 32), experts]),
        ("random indices", [torch.randn(128, 8), torch.randint(0, 128, (96,))]),
        ("one length everywhere", [torch.full((8,), 512, dtype=torch.int32)]),
        ("bool mask", [torch.randn(16, 16), torch.rand(16, 16) < 0.5]),
        ("scalar tensor and plain values", [torch.tensor(2.0), 3, 0.5, "mode", None]),
    ] + ([("fp8", [(torch.rand(32, 64) * 8 - 4).to(torch.float8_e4m3fn)])] if hasattr(torch, "float8_e4m3fn") else [])


def load_upstream(folder):
    """A KernelBench-Hard problem's reference module at its smallest shape (its module-level knobs set,
    as upstream's check.py sets them), or None when it does not load here (a package this interpreter
    lacks, a torch without its dtypes)."""
    spec = importlib.util.spec_from_file_location("ref_" + os.path.basename(folder), os.path.join(folder, "reference.py"))
    ref = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(ref)
    except (ImportError, AttributeError) as e:
        print("NOTE: %s not checked: its reference does not load here (%s)" % (os.path.basename(folder), e))
        return None
    shapes_spec = importlib.util.spec_from_file_location("shapes_" + os.path.basename(folder),
                                                         os.path.join(folder, "shapes.py"))
    shapes = importlib.util.module_from_spec(shapes_spec)
    shapes_spec.loader.exec_module(shapes)
    smallest = min(shapes.SHAPES, key=lambda s: probes.prod([v for v in s.values() if isinstance(v, int)]))
    for k, v in smallest.items():
        setattr(ref, k, v)
    return ref


class ProbeInputs(unittest.TestCase):
    def assert_like(self, what, before, after):
        """`after` may stand where `before` stood: a tensor of its shape and dtype (a plain value stays)."""
        if isinstance(before, torch.Tensor):
            self.assertIsInstance(after, torch.Tensor, what)
            self.assertEqual(tuple(after.shape), tuple(before.shape), what)
            self.assertEqual(after.dtype, before.dtype, what)
        else:
            self.assertIs(after, before, what)

    def check(self, label, inputs, names):
        # The redraws only move floats to floats: checked where they are quick on the host (upstream's
        # MoE and paged attention take a minute here, seconds on the device they are made on).
        small = sum(v.numel() for v in inputs if isinstance(v, torch.Tensor)) <= REDRAW_ELEMENTS
        for kind in REDRAWS if small else []:
            out, _ = probes.redraw(torch, inputs, kind)
            if out is None:
                continue  # the redraw would make ties: skipped, with its reason, by the caller
            self.assertEqual(len(out), len(inputs), label)
            for k, (b, a) in enumerate(zip(inputs, out)):
                self.assert_like("%s: %s of input %d" % (label, kind, k), b, a)
        for guarded in (False, True):
            for name, k, y, why in probes.input_variants(torch, inputs, names, lambda: guarded):
                what = "%s: %s" % (label, name)
                self.assertTrue((y is None) != (why is None), what + ": a tensor or a reason, never both or neither")
                self.assertNotIn("None", name, what)
                if y is None:
                    self.assertIsInstance(why, str, what)
                else:
                    self.assert_like(what, inputs[k], y)

    def test_every_structure(self):
        for label, inputs in structures():
            with self.subTest(label):
                self.check(label, inputs, ["in%d" % k for k in range(len(inputs))])

    def test_ordered_offsets_are_left_with_a_reason(self):
        inputs = dict(structures())["ordered offsets"]
        variants = {name: (y, why) for name, _, y, why in probes.input_variants(torch, inputs, ["x", "offsets", "w"],
                                                                                 lambda: False)}
        self.assertIn("one-value(offsets)", variants)
        self.assertEqual(variants["one-value(offsets)"], (None, "an ordered index keeps its order"))

    def test_kernelbench_hard_problems(self):
        if not os.path.isdir(UPSTREAM):
            print("NOTE: no upstream problems at %s: KernelBench-Hard's inputs not checked" % UPSTREAM)
            return
        checked = 0
        for entry in sorted(os.listdir(UPSTREAM)):
            folder = os.path.join(UPSTREAM, entry)
            if not os.path.isfile(os.path.join(folder, "reference.py")):
                continue
            ref = load_upstream(folder)
            if ref is None:
                continue
            with self.subTest(entry):
                torch.manual_seed(1000)
                try:
                    inputs = list(ref.get_inputs())
                except (RuntimeError, TypeError, AttributeError) as e:  # a dtype this torch lacks on the host
                    print("NOTE: %s not checked: its inputs cannot be drawn here (%s)" % (entry, e))
                    continue
                self.check(entry, inputs, probes.input_names(type("P", (), {"ref": ref})(), len(inputs)))
                checked += 1
        self.assertGreater(checked, 0, "no problem under %s" % UPSTREAM)


if __name__ == "__main__":
    unittest.main()
