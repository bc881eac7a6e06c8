# KernelBench layout: one file with Model, get_inputs and get_init_inputs.
import torch

batch_size = 32
dim = 256


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.nn.functional.softplus(x)


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
