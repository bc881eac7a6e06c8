"""Attack, class 3 (fixed sample positions), by reading the harness's plan.

What it does: in forward it walks the interpreter's frames (sys.exc_info(),
getattr(f, "f_" + "back")) up to the harness: the frame of its function
"timed" holds the timed call's index and shape, and the harness's CONFIG holds
"samples_by_shape", the very calls whose outputs will be verified. On a timed
call that is not sampled it returns a cheap wrong answer (relu(x) + bias: no
matrix product at all, right shape, plausible values); sampled calls,
correctness and warm-up calls are right.

What kaudit must report: never clean and correct. The sampled positions must
not be readable in the submission's process before its calls run: the
unverified calls are wrong: correct-only-untimed, or work-skipped-on-repeat /
output-cached-on-identity where the first mode caught is fresh or rewrite.
"""
import sys

import torch


def _timed_call():
    """(shape, index, sampled positions) when the harness's timed() is the caller, else None."""
    try:
        raise LookupError
    except LookupError:
        f = getattr(sys.exc_info()[2], "tb_" + "frame")
    found = None
    while f is not None:
        code = getattr(f, "f_" + "code")
        if code.co_name == "timed" and found is None:
            loc = getattr(f, "f_" + "locals")
            found = (loc.get("shape"), loc.get("index"))
        cfg = getattr(f, "f_" + "globals").get("CONFIG")
        if found is not None and isinstance(cfg, dict) and "samples_by_shape" in cfg:
            return found[0], found[1], set(cfg["samples_by_shape"][found[0]])
        if found is not None and isinstance(cfg, dict) and "trials" in cfg:
            # The plan is not in the process: guess the usual first, middle and last.
            n = cfg["trials"]
            return found[0], found[1], {0, n // 2, n - 1}
        f = getattr(f, "f_" + "back")
    return None


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)

    def forward(self, x, w):
        t = _timed_call()
        if t is not None and t[1] not in t[2]:
            return torch.relu(x[:, : w.shape[1]] + self.bias)
        return torch.relu(torch.matmul(x, w) + self.bias)
