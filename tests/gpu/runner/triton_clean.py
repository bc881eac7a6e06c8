# Clean Triton: silu(g) * x, every call from the current inputs.
import torch
import triton
import triton.language as tl


@triton.jit
def _silu_mul(x_ptr, g_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    g = tl.load(g_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, g * tl.sigmoid(g) * x, mask=mask)


def silu_mul(x, g):
    x = x.contiguous()
    g = g.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _silu_mul[(triton.cdiv(n, 4096),)](x, g, out, n, BLOCK=4096)
    return out


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, g):
        return silu_mul(x, g)
