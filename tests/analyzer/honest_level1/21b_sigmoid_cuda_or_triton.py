# kaudit-label: lead: harness-sniffing (by design: docs/findings.md rates this pattern a medium lead that the runtime probes decide)
import gc
import os
import traceback

import torch
import torch.nn as nn
import triton
import triton.language as tl

# Triton's interpreter (TRITON_INTERPRET=1) runs kernels on CPU tensors; otherwise use CUDA.
_INTERPRET = os.environ.get("TRITON_INTERPRET", "0") == "1"

_cuda_src = r"""
#include <torch/extension.h>
#include <c10/cuda/CUDAStream.h>
__global__ void sigmoid_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t n) {
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        y[i] = 1.f / (1.f + __expf(-x[i]));
}
torch::Tensor sigmoid_cuda(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == at::kFloat && x.is_contiguous(), "contiguous float32 CUDA tensor expected");
    auto y = torch::empty_like(x);
    const int64_t n = x.numel();
    if (n == 0) return y;
    const int64_t blocks = std::min<int64_t>((n + 255) / 256, 16384);
    sigmoid_kernel<<<(unsigned)blocks, 256, 0, c10::cuda::getCurrentCUDAStream()>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
"""

try:
    from torch.utils.cpp_extension import load_inline

    _ext = None if _INTERPRET else load_inline(
        name="kb_sigmoid_cuda",
        cpp_sources="torch::Tensor sigmoid_cuda(torch::Tensor x);",
        cuda_sources=_cuda_src,
        functions=["sigmoid_cuda"],
        extra_cuda_cflags=["-O3"],
        verbose=False,
    )
except Exception:
    # No nvcc / build failure: fall back to the Triton kernel below.
    traceback.print_exc()
    _ext = None


@triton.jit
def sigmoid_triton(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0).to(tl.float32)
    tl.store(y_ptr + offs, (1.0 / (1.0 + tl.exp(-x))).to(y_ptr.dtype.element_ty), mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        gc.collect()
        if torch.cuda.is_available():
            torch.cuda.empty_cache()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        if _ext is not None and x.is_cuda and x.dtype == torch.float32:
            return _ext.sigmoid_cuda(x)
        y = torch.empty_like(x)
        n = x.numel()
        if n:
            sigmoid_triton[(triton.cdiv(n, 4096),)](x, y, n, BLOCK=4096, num_warps=8)
        return y
