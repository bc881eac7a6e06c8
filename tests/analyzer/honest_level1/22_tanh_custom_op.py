import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _tanh_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0).to(tl.float32)
    # tanh(x) = 1 - 2 / (exp(2x) + 1): stable at both ends (exp overflow gives 1, underflow -1).
    y = 1.0 - 2.0 / (tl.exp(2.0 * x) + 1.0)
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=m)


@torch.library.custom_op("kbprobe::tanh_fwd", mutates_args=())
def tanh_fwd(x: torch.Tensor) -> torch.Tensor:
    x = x.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n:
        _tanh_kernel[(triton.cdiv(n, 4096),)](x, y, n, BLOCK=4096, num_warps=8)
    return y


@tanh_fwd.register_fake
def _(x):
    return torch.empty_like(x)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.ops.kbprobe.tanh_fwd(x)
