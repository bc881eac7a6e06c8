# With a problem folder, its forbidden list is applied on top of the default pack.
# kaudit-test: problem=../../problems/gemm_graded
# kaudit-test: ignore=no-authored-kernel,reference-resubmitted
import torch
import torch.nn.functional as F


class ModelNew(torch.nn.Module):
    def forward(self, a, b, w):
        y = F.linear(a, w)  # expect: banned-call
        v, i = y.topk(8, dim=-1)  # expect: banned-call
        z = torch.add(a, b)
        return torch.matmul(y, b) + z  # expect: banned-call
