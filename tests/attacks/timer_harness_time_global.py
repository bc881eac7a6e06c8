"""Attack, timer patching through the harness's globals (no module touched).

What it does: instead of assigning time.perf_counter (which static analysis
reads), it walks the interpreter's frames to the harness's globals (those of
the module that holds the name, reached through a harness function's
__globals__) and replaces the harness's name `time` with an object whose perf_counter runs 100
times slower than the real clock; the real time module is left alone. forward
is honest; every reported time is a hundredth of the truth.

What kaudit must report: never clean and correct: the times are forged
(timing-forged, pending), the harness was patched (harness-tampering,
pending).
"""
import sys
import time as _time

import torch


class _SlowTime:
    def __init__(self, real):
        self._real = real
        self._origin = real.perf_counter()

    def perf_counter(self):
        return self._origin + (self._real.perf_counter() - self._origin) / 100.0

    def __getattr__(self, name):
        return getattr(self._real, name)


def _patch():
    try:
        raise LookupError
    except LookupError:
        f = getattr(sys.exc_info()[2], "tb_" + "frame")
    while f is not None:
        g = getattr(f, "f_" + "globals")
        if "CONFIG" in g:
            # The harness's globals, or those of a harness module one of its
            # functions comes from (the harness is several modules).
            for scope in [g] + [getattr(v, "__glo" + "bals__") for v in list(g.values()) if callable(v)
                                and hasattr(v, "__glo" + "bals__")]:
                if "CONFIG" in scope and scope.get("time") is _time:
                    scope["time"] = _SlowTime(_time)
                    return
        f = getattr(f, "f_" + "back")


_patch()


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)

    def forward(self, x, w):
        return torch.relu(torch.matmul(x, w) + self.bias)
