# Clean: an authored kernel launched through ordinary Python indirection (autograd_function_apply);
# no-authored-kernel must stay silent (a false alarm on honest code before).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _leaky_fwd(x_ptr, y_ptr, n, slope, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(y_ptr + offs, tl.where(x >= 0, x, x * slope), mask=m)


@triton.jit
def _leaky_bwd(g_ptr, x_ptr, dx_ptr, n, slope, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    g = tl.load(g_ptr + offs, mask=m)
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(dx_ptr + offs, tl.where(x > 0, g, g * slope), mask=m)


class _LeakyReLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, slope):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        if n:
            _leaky_fwd[(triton.cdiv(n, 2048),)](x, y, n, slope, BLOCK=2048, num_warps=8)
        ctx.save_for_backward(x)
        ctx.slope = slope
        return y

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        g = g.contiguous()
        dx = torch.empty_like(x)
        n = x.numel()
        if n:
            _leaky_bwd[(triton.cdiv(n, 2048),)](g, x, dx, n, ctx.slope, BLOCK=2048, num_warps=8)
        return dx, None


class ModelNew(nn.Module):
    def __init__(self, negative_slope: float = 0.01):
        super().__init__()
        self.negative_slope = negative_slope

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _LeakyReLU.apply(x, self.negative_slope)
