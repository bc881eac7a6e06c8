import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    tl.store(y_ptr + offs, tl.maximum(x, 0.0), mask=m)


# Launch parameters measured offline on an H200 for a few tensor sizes (numel -> (BLOCK, warps)).
# Every other size uses the heuristic below.
_TUNED = {
    4096 * 393216: (8192, 16),
    1 << 20: (1024, 4),
    1 << 24: (4096, 8),
}


def _launch_params(n: int):
    p = _TUNED.get(n)
    if p is not None:
        return p
    if n >= (1 << 24):
        return 4096, 8
    return 1024, 4


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        if n:
            block, warps = _launch_params(n)
            relu_kernel[(triton.cdiv(n, block),)](x, y, n, BLOCK=block, num_warps=warps)
        return y
