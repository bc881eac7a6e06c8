"""The k largest values of each row, descending. Every row of the input is a
permutation of an evenly spaced grid (RECONSTRUCTED, see problem.yaml)."""
import torch

rows = 64
n = 128
k = 8


class Model(torch.nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def forward(self, x):
        return torch.topk(x, self.k, dim=-1).values


def get_inputs():
    grid = torch.linspace(-1.0, 1.0, n, device="cuda")
    order = torch.argsort(torch.rand(rows, n, device="cuda"), dim=-1)
    return [grid[order]]


def get_init_inputs():
    return [k]
