"""Attack, timer patching (pygpubench's class, on the CPU): time.perf_counter
replaced outright.

What it does: the harness times CPU calls with time.perf_counter from the time
module it shares with the submission. At import the submission replaces it
with a clock that runs 100 times slower than the real one. forward is honest;
every reported time is a hundredth of the truth. KernelBench layout
(kb_softplus, ModelNew).

What kaudit must report: never clean and correct: monkeypatching statically,
and at run time the times are forged (timing-forged, pending), e.g. the
runner's own clock around the calls disagrees with the harness's.
"""
import time

import torch

_real = time.perf_counter
_origin = _real()


def _slow_clock():
    return _origin + (_real() - _origin) / 100.0


time.perf_counter = _slow_clock


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.log1p(torch.exp(-x.abs())) + x.clamp(min=0)
