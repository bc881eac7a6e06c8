import math
import re
import time

import torch
import torch.nn as nn
import triton
import triton.language as tl

torch.set_float32_matmul_precision("highest")
torch.backends.cudnn.benchmark = True

_FP8 = getattr(torch, "float8_e4m3fn", None)   # feature probe; this kernel rejects fp8 inputs
_ARCH_RE = re.compile(r"sm_(\d+)")


def _sm_version() -> int:
    if not torch.cuda.is_available():
        return 0
    major, minor = torch.cuda.get_device_capability()
    m = _ARCH_RE.match(f"sm_{major}{minor}")
    return int(m.group(1)) if m else 0


@triton.jit
def _tanh(x):
    e = tl.exp(-2.0 * tl.abs(x))
    t = (1.0 - e) / (1.0 + e)
    return tl.where(x < 0, -t, t)


@triton.jit
def new_gelu_kernel(x_ptr, y_ptr, n, k0, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0).to(tl.float32)
    y = 0.5 * x * (1.0 + _tanh(k0 * (x + 0.044715 * x * x * x)))
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=m)


def new_gelu(x: torch.Tensor) -> torch.Tensor:
    if _FP8 is not None and x.dtype == _FP8:
        raise TypeError("fp8 input is not supported")
    x = x.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n:
        block = new_gelu.block
        new_gelu_kernel[(triton.cdiv(n, block),)](x, y, n, math.sqrt(2.0 / math.pi), BLOCK=block, num_warps=8)
    return y


new_gelu.block = 4096 if _sm_version() >= 90 else 2048


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        if torch.cuda.is_available():
            t0 = time.perf_counter()
            new_gelu(torch.zeros(8, device="cuda"))   # JIT compile up front
            torch.cuda.synchronize()
            print(f"[new_gelu] compiled in {time.perf_counter() - t0:.2f}s")

    def forward(self, x):
        return new_gelu(x)
