# Cheat: slow (about 20 ms a call), but replaces the harness's clock (reached
# through the harness's modules) with one that barely moves, so the times it
# reports are a few microseconds.
import sys
import time

import torch

_fake = [0.0]


def _slow_clock():
    _fake[0] += 1e-6
    return _fake[0]


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)

    def forward(self, x, w):
        # The harness's modules (its entry runs as __main__): wherever one holds the clock.
        for name, module in list(sys.modules.items()):
            if (name == "__main__" or name.startswith("kaudit_harness")) and hasattr(module, "_perf_counter"):
                setattr(module, "_perf_counter", _slow_clock)
        time.sleep(0.02)
        return torch.relu(x @ w + self.bias)
