"""A second problem in the same level folder: KernelBench keeps one .py per
problem side by side, so a run is given the file, not the folder."""
import torch


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.scale = torch.nn.Parameter(torch.randn(n))

    def forward(self, x):
        return torch.tanh(x) * self.scale


n = 256


def get_inputs():
    return [torch.randn(32, n)]


def get_init_inputs():
    return [n]
