"""relu(x @ w + bias). Inputs are made on "cuda", as real problems do; the
runner's --device cpu moves them to the CPU."""
import torch

rows = 64
k = 128
n = 128


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)

    def forward(self, x, w):
        return torch.relu(x @ w + self.bias)


def get_inputs():
    x = torch.randn(rows, k, device="cuda")
    w = torch.randn(k, n, device="cuda") / k ** 0.5
    return [x, w]


def get_init_inputs():
    return [n]
