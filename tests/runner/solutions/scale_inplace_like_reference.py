# Does what the in-place reference does: scales x in place and returns it.
import torch


class Model(torch.nn.Module):
    def __init__(self, s):
        super().__init__()
        self.s = s

    def forward(self, x):
        return x.mul_(self.s)
