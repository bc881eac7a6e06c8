import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.autotune(
    configs=[triton.Config({"BLOCK": 2048}, num_warps=4), triton.Config({"BLOCK": 4096}, num_warps=8)],
    key=["n"],
)
@triton.jit
def elu_kernel(x_ptr, y_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0).to(tl.float32)
    neg = alpha * (tl.exp(tl.minimum(x, 0.0)) - 1.0)
    y = tl.where(x > 0, x, neg)
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=m)


def _elu(x, alpha):
    x = x.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n:
        elu_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, y, n, alpha)
    return y


class ModelNew(nn.Module):
    def __init__(self, alpha: float = 1.0):
        super().__init__()
        self.alpha = alpha
        self._compiled = False

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self._compiled:
            # First call only: JIT-compile the kernel on a tiny tensor of the same dtype
            # so compilation does not interleave with the real launch.
            _elu(torch.zeros(16, device=x.device, dtype=x.dtype), self.alpha)
            self._compiled = True
        return _elu(x, self.alpha)
