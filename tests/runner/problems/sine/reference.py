"""sin(x), element-wise."""
import torch

rows = 64
cols = 128


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.sin(x)


def get_inputs():
    return [torch.randn(rows, cols, device="cuda")]


def get_init_inputs():
    return []
