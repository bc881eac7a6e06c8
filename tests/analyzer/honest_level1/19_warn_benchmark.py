import os
import warnings

import torch
import torch.nn as nn
import triton
import triton.language as tl

# Tuning knob, read once at import: cap on warps tried by the autotuner.
_MAX_WARPS = 8


def _configs():
    cfgs = []
    for block in (1024, 2048, 4096, 8192):
        for warps in (4, 8, 16):
            if warps <= _MAX_WARPS:
                cfgs.append(triton.Config({"BLOCK_SIZE": block}, num_warps=warps))
    return cfgs


@triton.autotune(configs=_configs(), key=["n_elements"])
@triton.jit
def relu_kernel(x_ptr, y_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid.to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    y = tl.where(x > 0, x, 0.0)
    tl.store(y_ptr + offsets, y, mask=mask)


def triton_relu(x: torch.Tensor) -> torch.Tensor:
    if not x.is_contiguous():
        warnings.warn("non-contiguous input: copying before the kernel (slower in benchmarks)")
    x = x.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n == 0:
        return y
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)
    relu_kernel[grid](x, y, n)
    return y


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not x.is_cuda:
            # CPU path (never used by the benchmark): plain elementwise select.
            return torch.where(x > 0, x, torch.zeros((), dtype=x.dtype))
        return triton_relu(x)
