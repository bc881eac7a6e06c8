# Wrong by 2e-3 everywhere: outside a float32 tolerance of 1e-4, inside the
# 1e-2 that a tolerance read wrongly would fall back to.
import torch


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)

    def forward(self, x, w):
        return torch.relu(torch.matmul(x, w) + self.bias) + 2e-3
