import math

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def sumsq_kernel(x_ptr, part_ptr, n, BLOCK: tl.constexpr, TILES: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in range(TILES):
        offs = (pid * TILES + i) * BLOCK + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
        acc += v * v
    tl.store(part_ptr + pid, tl.sum(acc, axis=0))


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, inv_norm, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m) * inv_norm, mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        n = x.numel()
        BLOCK, TILES = 4096, 16
        progs = max(triton.cdiv(n, BLOCK * TILES), 1)
        parts = torch.empty(progs, device=x.device, dtype=torch.float32)
        sumsq_kernel[(progs,)](x, parts, n, BLOCK=BLOCK, TILES=TILES, num_warps=8)
        # Scalar norm to the host (one small sync) so the scale kernel takes it as an argument.
        total = parts.double().sum().item()
        inv_norm = 1.0 / math.sqrt(total)
        y = torch.empty_like(x)
        scale_kernel[(triton.cdiv(n, 8192),)](x, y, n, inv_norm, BLOCK=8192, num_warps=8)
        return y
