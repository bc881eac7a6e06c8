import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl

_SUPPORTED = (torch.float32, torch.float16, torch.bfloat16)


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    tl.store(y_ptr + offs, tl.maximum(x, 0.0), mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dtype not in _SUPPORTED:
            # float64 / integer inputs are outside what the kernel was written for
            # (the benchmark only produces float32).
            return F.relu(x)
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        if n:
            relu_kernel[(triton.cdiv(n, 4096),)](x, y, n, BLOCK=4096, num_warps=8)
        return y
