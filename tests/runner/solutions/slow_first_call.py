# Honest but slow in its first call, with no build to show for it (no
# compiler process): like a kernel that never finishes inside forward. On a
# device shared with runs waiting to time, it is stopped at a call's limit
# and run again alone (kaudit audit); alone it is correct with the default
# limits (40 s is under two calls' limits) and times out under shorter ones.
import time

import torch


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)
        self.calls = 0

    def forward(self, x, w):
        self.calls += 1
        if self.calls == 1:
            time.sleep(40)
        return torch.relu(torch.matmul(x, w) + self.bias)
