import functools

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_scale_kernel(d_ptr, b_ptr, c_ptr, N, M, BLOCK_M: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK_M + tl.arange(0, BLOCK_M)
    m = cols < M
    d = tl.load(d_ptr + row)
    b = tl.load(b_ptr + row * M + cols, mask=m, other=0.0)
    tl.store(c_ptr + row * M + cols, b * d, mask=m)


def _launch(d, b, c, block_m, num_warps):
    N, M = b.shape
    row_scale_kernel[(N, triton.cdiv(M, block_m))](d, b, c, N, M, BLOCK_M=block_m, num_warps=num_warps)
    return c


class ModelNew(nn.Module):
    def __init__(self, block_m: int = 1024):
        super().__init__()
        # Bind the launch configuration once.
        self._run = functools.partial(_launch, block_m=block_m, num_warps=4)

    def forward(self, A, B):
        A = A.contiguous()
        B = B.contiguous()
        C = torch.empty_like(B)
        if C.numel() == 0:
            return C
        return self._run(A, B, C)
