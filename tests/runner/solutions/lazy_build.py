# Honest, with a lazy build: the first call of each shape stands in for a
# `load_inline` build or a JIT compile inside forward (common in real
# submissions) by taking several seconds, longer than a call's limit; every
# later call is quick. The first call of a shape gets the set-up budget.
import time

import torch

BUILD_SECONDS = 5.0


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)
        self.built = set()

    def forward(self, x, w):
        if x.shape not in self.built:
            time.sleep(BUILD_SECONDS)  # the "build"
            self.built.add(x.shape)
        return torch.relu(torch.matmul(x, w) + self.bias)
