# banned-call on a KernelBench problem, which names no forbidden ops (issue
# 28, item 4): the ops its reference computes with are banned as leads, so a
# fig-leaf kernel around the reference's own library call is reported.
# kaudit-test: problem=../../problems/kb_conv_relu
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def _copy(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(o_ptr + offs, tl.load(x_ptr + offs, mask=m), mask=m)


class ModelNew(nn.Module):
    def __init__(self, channels_in, channels_out, kernel):
        super().__init__()
        self.conv = nn.Conv2d(channels_in, channels_out, kernel, bias=False)  # expect: banned-call

    def forward(self, x):
        y = torch.relu(self.conv(x))  # expect: banned-call
        out = torch.empty_like(y)
        _copy[(triton.cdiv(y.numel(), 1024),)](y, out, y.numel(), BLOCK=1024)
        # plumbing the reference also does is no math: view, contiguous, empty
        return out.contiguous().sum(dim=-1).view(out.shape[0], -1)  # expect: banned-call

    def forward_functional(self, x, w):
        return F.relu(x) + x.view(-1).view(x.shape)
