# Right values, but prints megabytes and returns a torch.Tensor subclass.
import sys

import torch


class Shiny(torch.Tensor):
    pass


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)

    def forward(self, x, w):
        sys.stdout.write("x" * (1 << 20) + "\n")
        return torch.relu(x @ w + self.bias).as_subclass(Shiny)
