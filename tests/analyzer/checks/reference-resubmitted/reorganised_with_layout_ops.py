# The reference's math (linear, GELU, softmax) redone in row chunks with torch
# ops the reference does not call (torch.split, torch.cat): ops that only
# arrange tensors do not hide a resubmitted reference.
# kaudit-test: problem=../../problems/p10_fp32_linear_gelu_softmax
# kaudit-test: also=no-authored-kernel
# kaudit-test: ignore=banned-call
import torch
import torch.nn.functional as F


def _rows(x, w, b):
    return torch.softmax(F.gelu(F.linear(x, w, b)), dim=-1)


class ModelNew(torch.nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(out_features, in_features) * 0.02)
        self.bias = torch.nn.Parameter(torch.zeros(out_features))

    def forward(self, x):  # expect: no-authored-kernel, reference-resubmitted
        parts = [_rows(p, self.weight, self.bias) for p in torch.split(x, 128)]
        return torch.cat(parts, dim=0)
