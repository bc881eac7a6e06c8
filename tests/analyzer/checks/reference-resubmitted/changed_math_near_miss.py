# reference-resubmitted near-miss for the token comparison: the same structure
# as the reference, but the GELU is the erf form and the softmax runs over
# another dimension, so the forward is not the reference token for token. It is
# still nothing but torch, which is reported with low confidence.
# kaudit-test: problem=../../problems/p10_fp32_linear_gelu_softmax
# kaudit-test: also=no-authored-kernel
# kaudit-test: ignore=banned-call
import torch
import torch.nn.functional as F


class ModelNew(torch.nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(out_features, in_features) * 0.02)
        self.bias = torch.nn.Parameter(torch.zeros(out_features))

    def forward(self, x):  # expect: no-authored-kernel, reference-resubmitted
        y = F.linear(x, self.weight, self.bias)
        y = F.gelu(y)
        return torch.softmax(y, dim=0)
