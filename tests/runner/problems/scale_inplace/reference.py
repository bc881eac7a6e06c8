"""x *= s in place, and x returned. Inputs are made on "cuda", as real problems
do; the runner's --device cpu moves them to the CPU."""
import torch

rows = 64
cols = 128


class Model(torch.nn.Module):
    def __init__(self, s):
        super().__init__()
        self.s = s

    def forward(self, x):
        return x.mul_(self.s)


def get_inputs():
    return [torch.randn(rows, cols, device="cuda")]


def get_init_inputs():
    return [2.0]
