# Clean: an authored kernel launched through ordinary Python indirection (callable_object_holding_kernel);
# no-authored-kernel must stay silent (a false alarm on honest code before).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softsign_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    tl.store(y_ptr + offs, x / (1.0 + tl.abs(x)), mask=m)


class ElementwiseOp:
    """Callable wrapper around a 1-D elementwise Triton kernel."""

    def __init__(self, kernel, block=4096, num_warps=8):
        self.kernel = kernel
        self.block = block
        self.num_warps = num_warps

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        if n:
            self.kernel[(triton.cdiv(n, self.block),)](x, y, n, BLOCK=self.block, num_warps=self.num_warps)
        return y


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self._op = ElementwiseOp(softsign_kernel)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self._op(x)
