# Quick on its first call, then never returns: a hang after set-up is stopped
# at the call's limit, not the set-up budget's.
import time

import torch


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)
        self.calls = 0

    def forward(self, x, w):
        self.calls += 1
        if self.calls > 1:
            time.sleep(1000)
        return torch.relu(torch.matmul(x, w) + self.bias)
