"""relu(x @ w + bias); get_inputs first waits (at most WAIT_S) for the mark
the solution leaves in the exchange folder's output folder when it is
imported (tests/runner/solutions/mark_import.py), and raises without it."""
import os
import sys
import time

import torch

rows = 64
k = 128
n = 128
WAIT_S = 45


def solution_imported():
    xfer = getattr(sys.modules.get("__main__"), "CONFIG", {}).get("xfer", "")
    mark = os.path.join(xfer, "out", "solution-imported")
    until = time.monotonic() + WAIT_S
    while not os.path.exists(mark):
        if time.monotonic() > until:
            return False
        time.sleep(0.05)
    return True


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)

    def forward(self, x, w):
        return torch.relu(x @ w + self.bias)


def get_inputs():
    if not solution_imported():
        raise RuntimeError("the solution was not imported while the reference drew its inputs")
    x = torch.randn(rows, k, device="cuda")
    w = torch.randn(k, n, device="cuda") / k ** 0.5
    return [x, w]


def get_init_inputs():
    return [n]
