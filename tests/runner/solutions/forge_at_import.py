# Cheat: writes a report of a fast timed call onto the harness's channel
# (file descriptor 3) while it is imported, where the runner reads the
# set-up beside the reference's work (a thread of its own, in the sandbox).
import json
import os

import torch

os.write(3, (json.dumps({"event": "timed", "shape": 0, "mode": "bench", "call": 0, "ms": 0.001}) + "\n").encode())


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)

    def forward(self, x, w):
        return torch.relu(x @ w + self.bias)
