# Honest: relu(x @ w + bias), computed every call. Each call's start and end
# (time.monotonic()) are appended to calls.log in its output folder, for a
# test that holds them against the reference's own calls.
import os
import sys
import time

import torch

_log = os.path.join(getattr(sys.modules.get("__main__"), "CONFIG", {}).get("xfer", ""), "out", "calls.log")


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)

    def forward(self, x, w):
        began = time.monotonic()
        out = torch.relu(torch.matmul(x, w) + self.bias)
        with open(_log, "a") as f:
            f.write("%.6f %.6f\n" % (began, time.monotonic()))
        return out
