# l2-persistence through ctypes: cudaDeviceSetLimit(0x06, ...) is the
# persisting-L2 limit spelled as a number; the window name is looked up by string.
import ctypes

import torch
import triton
import triton.language as tl

_cudart = ctypes.CDLL("libcudart.so")
_cudart.cudaDeviceSetLimit(0x06, ctypes.c_size_t(32 << 20))  # expect: l2-persistence
_cudart.cudaDeviceSetLimit(0x02, ctypes.c_size_t(1 << 20))  # the malloc heap limit: not reported
_window_kind = getattr(_cudart, "cudaStreamAttributeAccessPolicyWindow", None)  # expect: l2-persistence


@triton.jit
def _copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        _copy_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
        return y
