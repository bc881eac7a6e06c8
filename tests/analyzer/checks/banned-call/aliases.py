# Every alias form that reaches a banned op must be reported, and the message
# names the path.
# kaudit-test: ignore=no-authored-kernel,reference-resubmitted
import functools
import operator

import torch
import torch as th
import torch.nn as nn
import torch.nn.functional as F
from torch import matmul as mm
from torch.nn.functional import softmax

bmm_alias = torch.bmm
T = torch


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(64, 64)  # expect: banned-call
        self.proj = nn.Linear(64, 64)  # expect: banned-call
        self.f = torch.matmul  # expect: banned-call

    def forward(self, a, b):
        x = torch.matmul(a, b)  # expect: banned-call
        x = th.mm(a, b)  # expect: banned-call
        x = mm(a, b)  # expect: banned-call
        x = bmm_alias(a, b)  # expect: banned-call
        x = T.einsum("ij,jk->ik", a, b)  # expect: banned-call
        x = F.linear(a, b)  # expect: banned-call
        x = softmax(x, dim=-1)  # expect: banned-call
        x = getattr(torch, "mat" + "mul")(a, b)  # expect: banned-call
        x = a @ b  # expect: banned-call
        x @= b  # expect: banned-call
        x = a.matmul(b)  # expect: banned-call
        v, i = x.topk(4)  # expect: banned-call
        x = torch.ops.aten.mm.default(a, b)  # expect: banned-call
        x = torch.ops.aten.mm(a, b)  # expect: banned-call
        x = operator.matmul(a, b)  # expect: banned-call
        x = a.__matmul__(b)  # expect: banned-call
        x = torch.Tensor.matmul(a, b)  # expect: banned-call
        g = functools.partial(torch.mm, a)  # expect: banned-call
        y = self.fc(x)
        return self.helper(x) + y + self.proj.weight + g(b)

    def helper(self, x):
        return x.sort(dim=-1)[0]  # expect: banned-call


def never_called(a, b):
    return torch.bmm(a, b)  # expect: banned-call
