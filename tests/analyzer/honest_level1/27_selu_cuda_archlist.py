import os

# Build only for the GPU we run on (Hopper); set before the extension is compiled.
os.environ.setdefault("TORCH_CUDA_ARCH_LIST", "9.0")

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <torch/extension.h>
#include <c10/cuda/CUDAStream.h>

__global__ void selu_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t n) {
    const float alpha = 1.6732632423543772848170429916717f;
    const float scale = 1.0507009873554804934193349852946f;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        float v = x[i];
        y[i] = scale * (v > 0.f ? v : alpha * expm1f(v));
    }
}

torch::Tensor selu_cuda(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "x must be CUDA");
    TORCH_CHECK(x.scalar_type() == at::kFloat, "x must be float32");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    auto y = torch::empty_like(x);
    const int64_t n = x.numel();
    if (n == 0) return y;
    int64_t blocks = std::min<int64_t>((n + 255) / 256, 4096);
    selu_kernel<<<(unsigned)blocks, 256, 0, c10::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), y.data_ptr<float>(), n);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
"""

selu_ext = load_inline(
    name="kb_selu_gridstride",
    cpp_sources="torch::Tensor selu_cuda(torch::Tensor x);",
    cuda_sources=cuda_src,
    functions=["selu_cuda"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        orig = x.dtype
        y = selu_ext.selu_cuda(x.contiguous().float())
        return y if orig == torch.float32 else y.to(orig)
