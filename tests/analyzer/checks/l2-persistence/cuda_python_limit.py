# l2-persistence through cuda-python: the carve-out is set from Python before
# the Triton kernel runs.
import torch
import triton
import triton.language as tl
from cuda import cudart


@triton.jit
def _axpy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, 2.0 * tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


class ModelNew(torch.nn.Module):
    def forward(self, x, y):
        n = x.numel()
        cudart.cudaDeviceSetLimit(cudart.cudaLimit.cudaLimitPersistingL2CacheSize, 64 << 20)  # expect: l2-persistence
        _axpy_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
        return y
