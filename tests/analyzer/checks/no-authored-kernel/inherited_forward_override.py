# Clean: an authored kernel launched through ordinary Python indirection (inherited_forward_override);
# no-authored-kernel must stay silent (a false alarm on honest code before).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def tanh_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0).to(tl.float32)
    e = tl.exp(-2.0 * tl.abs(x))
    t = (1.0 - e) / (1.0 + e)
    y = tl.where(x < 0, -t, t)
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=m)


class _TritonElementwise(nn.Module):
    """Shared plumbing: contiguity, allocation, empty inputs; subclasses provide _launch."""

    BLOCK = 4096

    def _launch(self, x, y, n):
        raise NotImplementedError

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        if n:
            self._launch(x, y, n)
        return y


class ModelNew(_TritonElementwise):
    def __init__(self):
        super().__init__()

    def _launch(self, x, y, n):
        tanh_kernel[(triton.cdiv(n, self.BLOCK),)](x, y, n, BLOCK=self.BLOCK, num_warps=8)
