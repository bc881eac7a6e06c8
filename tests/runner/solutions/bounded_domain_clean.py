# Honest: the same formula, without the domain check.
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, p):
        return -torch.log1p(-p)
