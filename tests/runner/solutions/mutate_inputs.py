# Right answer, but scales its input in place afterwards.
import torch


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)

    def forward(self, x, w):
        out = torch.relu(x @ w + self.bias)
        x.mul_(0.5)
        return out
