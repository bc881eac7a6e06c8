import torch
import torch._inductor.config as inductor_config
import torch.nn as nn
import triton
import triton.language as tl

# Glue compiled by Inductor; the main kernel is hand-written Triton.
inductor_config.coordinate_descent_tuning = True
torch._dynamo.config.cache_size_limit = 64


@triton.jit
def swish_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0).to(tl.float32)
    tl.store(y_ptr + offs, (x * tl.sigmoid(x)).to(y_ptr.dtype.element_ty), mask=m)


@torch.compile(fullgraph=True, dynamic=False)
def _prep(x: torch.Tensor) -> torch.Tensor:
    # Layout glue only: make the input dense for the flat kernel.
    return x.contiguous()


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xc = x if x.is_contiguous() else _prep(x)
        y = torch.empty_like(xc)
        n = xc.numel()
        if n:
            swish_kernel[(triton.cdiv(n, 4096),)](xc, y, n, BLOCK=4096, num_warps=8)
        return y
