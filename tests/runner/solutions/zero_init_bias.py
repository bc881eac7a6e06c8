# Declares the reference's bias but starts it at zero: right only because the
# harness loads the reference's state_dict into it, as KernelBench-Hard does.
import torch


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.zeros(n))

    def forward(self, x, w):
        return torch.relu(torch.matmul(x, w) + self.bias)
