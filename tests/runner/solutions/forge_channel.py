# Cheat: writes its own report of a fast timed call straight onto the
# harness's channel (file descriptor 3), besides the harness's own.
import json
import os

import torch


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)
        self.calls = 0

    def forward(self, x, w):
        self.calls += 1
        if self.calls == 9:  # the first timed call, after 5 correctness calls and 3 warm-up calls
            forged = {"event": "timed", "shape": 0, "mode": "bench", "call": 0, "ms": 0.001}
            os.write(3, (json.dumps(forged) + "\n").encode())
        return torch.relu(x @ w + self.bias)
