# Right answer, written into the input's storage and returned from there.
import torch


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)

    def forward(self, x, w):
        return x.copy_(torch.relu(x @ w + self.bias))
