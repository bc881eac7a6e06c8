# reference-resubmitted: the reference's forward with every name changed, the
# aliases spelled out, comments and the docstring dropped.
# kaudit-test: problem=../../problems/p10_fp32_linear_gelu_softmax
# kaudit-test: ignore=banned-call,no-authored-kernel
import torch
from torch import nn
from torch.nn import functional as fn


class ModelNew(nn.Module):
    def __init__(self, fan_in, fan_out):
        super().__init__()
        self.w = nn.Parameter(torch.randn(fan_out, fan_in) * 0.02)
        self.b = nn.Parameter(torch.zeros(fan_out))

    def forward(me, inp):  # expect: reference-resubmitted
        h = torch.nn.functional.linear(inp, me.w, me.b)
        h = fn.gelu(h, approximate="tanh")
        return torch.softmax(h, dim=-1)
