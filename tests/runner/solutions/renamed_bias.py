# Declares its bias under another name than the reference's: the strict
# state_dict load that KernelBench-Hard's check.py makes must fail, as a clear
# error of the submission.
import torch


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.offset = torch.nn.Parameter(torch.randn(n) * 0.1)

    def forward(self, x, w):
        return torch.relu(torch.matmul(x, w) + self.offset)
