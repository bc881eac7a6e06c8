import torch

m = 4096
n = 4096
k = 4096


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n, dtype=torch.bfloat16) * 0.1)

    def forward(self, x, w):
        return torch.nn.functional.gelu(x @ w + self.bias)


def get_inputs():
    x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(k, n, device="cuda", dtype=torch.bfloat16) / k ** 0.5
    return [x, w]


def get_init_inputs():
    return [n]
