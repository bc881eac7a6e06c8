"""Attack, class 4 (forged harness facts): the harness's own comparison
replaced through its globals, reached through frames.

What it does: the same offence as facts_patch_torch_equal.py (inputs scaled in
place from the second correctness call of each shape on, the answers right),
hidden without touching torch: at import it walks the interpreter's frames
(sys.exc_info(), getattr(f, "f_" + "back")) to the harness's globals and
replaces its same_values() (the in-process comparison of a later case's inputs
before and after the call) with one that always says "unchanged", and its
OutputChecks.check() facts stay as they are. No torch function is assigned, no
frame attribute is spelt out.

What kaudit must report: input-mutated; the harness was patched
(harness-tampering, pending).
"""
import sys

import torch


def _patch():
    try:
        raise LookupError
    except LookupError:
        f = getattr(sys.exc_info()[2], "tb_" + "frame")
    while f is not None:
        g = getattr(f, "f_" + "globals")
        if "same_values" in g and "CONFIG" in g:
            g["same_values"] = lambda *args: True
            return
        f = getattr(f, "f_" + "back")


_patch()


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)
        self.calls = 0

    def forward(self, x, w):
        self.calls += 1
        out = torch.relu(torch.matmul(x, w) + self.bias)
        if 2 <= self.calls <= 5:
            x.mul_(0.5)
        return out
