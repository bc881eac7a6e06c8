"""Which of the reference's expected-output calls are marked in its trace
(runner/harness/kaudit_harness_reference.py, ExpectedOutputs.begin_traced): the first
TRACED_CALLS_PER_SHAPE on each graded shape, none on an off-grid shape, and the tracer stops once
every graded shape has had them (a reference looping over thousands of kernels a call filled a
journal that took the runner 12 s to read). The tracer's library is replaced by a recorder of its
calls: what is checked is the harness's choice of calls, not CUPTI (tests/gpu covers that).
Run with an interpreter that has torch; exits 77 (skipped) without one."""
import types
import unittest

from harness_test_torch import torch
import kaudit_harness_reference as reference


class Recorder:
    """What the harness asked of libkaudit_tracer.so, in order."""

    def __init__(self):
        self.log = []

    def kaudit_call_begin(self, phase, shape, mode, index):
        self.log.append(("begin", phase.decode(), shape.decode(), index))

    def kaudit_call_end(self):
        self.log.append(("end",))

    def kaudit_tracer_finish(self):
        self.log.append(("finish",))


def outputs_for(graded):
    problem = types.SimpleNamespace(graded_indices=list(range(graded)))
    out = reference.ExpectedOutputs(torch, problem, "t", "/nonexistent", set())
    recorder = Recorder()
    out.tracer.lib = recorder
    return out, recorder


def call(out, shape):
    if out.begin_traced(shape):
        out.end_traced()


class ReferenceTrace(unittest.TestCase):
    def test_marks_the_first_calls_of_each_graded_shape_then_stops(self):
        out, rec = outputs_for(graded=2)
        n = reference.TRACED_CALLS_PER_SHAPE
        for shape in [0] * (n + 3) + [2, 1] + [3] * 2 + [1] * (n + 1) + [0]:
            call(out, shape)
        begins = [e for e in rec.log if e[0] == "begin"]
        self.assertEqual([e[2] for e in begins], ["0"] * n + ["1"] * n, "off-grid shapes 2 and 3 are never marked")
        self.assertTrue(all(e[1] == "reference" for e in begins))
        self.assertEqual([e[3] for e in begins], list(range(2 * n)), "each marked call numbered in order")
        self.assertEqual(rec.log.count(("end",)), 2 * n)
        self.assertEqual(rec.log[-1], ("finish",), "the tracer stops once both shapes have their calls")
        self.assertEqual(rec.log.count(("finish",)), 1)
        self.assertFalse(out.tracer.active)

    def test_keeps_tracing_while_a_graded_shape_has_had_too_few(self):
        out, rec = outputs_for(graded=3)
        for shape in [0] * 5 + [1] * 5:
            call(out, shape)
        self.assertNotIn(("finish",), rec.log, "shape 2 has had no call yet")
        self.assertTrue(out.tracer.active)

    def test_an_untraced_run_marks_nothing(self):
        out, _ = outputs_for(graded=1)
        out.tracer.lib = None
        self.assertFalse(out.begin_traced(0))


if __name__ == "__main__":
    unittest.main()
