# KernelBench: the submission defines ModelNew.
import torch


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.log1p(torch.exp(-x.abs())) + x.clamp(min=0)
