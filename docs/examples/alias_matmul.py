# An example for docs/usage.md: the core math of a GEMM problem done by
# torch.matmul behind an alias, beside a Triton kernel that does little.
import torch
import triton
import triton.language as tl
from torch import matmul as mm


@triton.jit
def scale_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 1.0, mask=mask)


class ModelNew(torch.nn.Module):
    def forward(self, a, b):
        c = mm(a, b)
        scale_kernel[(triton.cdiv(c.numel(), 1024),)](c, c.numel(), BLOCK=1024)
        return c
