# Cheat (a denial of service): announces the phase it is in again and again on
# the harness's channel (file descriptor 3), to renew the runner's deadline
# while its call never ends.
import json
import os
import time

import torch


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)

    def forward(self, x, w):
        for _ in range(1000):
            os.write(3, (json.dumps({"event": "phase", "phase": "correctness", "shape": 0}) + "\n").encode())
            time.sleep(1)
        return torch.relu(x @ w + self.bias)
