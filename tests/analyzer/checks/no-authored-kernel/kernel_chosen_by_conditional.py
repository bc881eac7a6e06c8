# Clean: an authored kernel launched through ordinary Python indirection (kernel_chosen_by_conditional);
# no-authored-kernel must stay silent (a false alarm on honest code before).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def hsig_masked(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    tl.store(y_ptr + offs, tl.minimum(tl.maximum(x / 6.0 + 0.5, 0.0), 1.0), mask=m)


@triton.jit
def hsig_even(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, tl.minimum(tl.maximum(x / 6.0 + 0.5, 0.0), 1.0))


class ModelNew(nn.Module):
    BLOCK = 4096

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        if n == 0:
            return y
        kernel = hsig_even if n % self.BLOCK == 0 else hsig_masked
        kernel[(triton.cdiv(n, self.BLOCK),)](x, y, n, BLOCK=self.BLOCK, num_warps=8)
        return y
