import math

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <torch/extension.h>
#include <c10/cuda/CUDAStream.h>

__device__ __forceinline__ float gelu_tanh(float x) {
    const float k0 = 0.7978845608028654f;   // sqrt(2/pi)
    const float k1 = 0.044715f;
    float inner = k0 * (x + k1 * x * x * x);
    return 0.5f * x * (1.f + tanhf(inner));
}

__global__ void gelu_vec4_kernel(const float4* __restrict__ x, float4* __restrict__ y, int64_t n4) {
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4;
         i += (int64_t)gridDim.x * blockDim.x) {
        float4 v = x[i];
        v.x = gelu_tanh(v.x); v.y = gelu_tanh(v.y); v.z = gelu_tanh(v.z); v.w = gelu_tanh(v.w);
        y[i] = v;
    }
}

__global__ void gelu_scalar_kernel(const float* __restrict__ x, float* __restrict__ y,
                                   int64_t start, int64_t n) {
    for (int64_t i = start + (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        y[i] = gelu_tanh(x[i]);
    }
}

torch::Tensor gelu_cuda(torch::Tensor x, int64_t threads, int64_t max_blocks) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.scalar_type() == at::kFloat, "gelu_cuda expects float32, got ", x.scalar_type());
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(threads > 0 && threads <= 1024, "bad thread count");
    auto y = torch::empty_like(x);
    const int64_t n = x.numel();
    if (n == 0) return y;
    auto stream = c10::cuda::getCurrentCUDAStream();
    const bool aligned = (reinterpret_cast<uintptr_t>(x.data_ptr<float>()) % 16 == 0) &&
                         (reinterpret_cast<uintptr_t>(y.data_ptr<float>()) % 16 == 0);
    int64_t done = 0;
    if (aligned && n >= 4) {
        const int64_t n4 = n / 4;
        int64_t blocks = std::min<int64_t>((n4 + threads - 1) / threads, max_blocks);
        gelu_vec4_kernel<<<(unsigned)blocks, (unsigned)threads, 0, stream>>>(
            reinterpret_cast<const float4*>(x.data_ptr<float>()),
            reinterpret_cast<float4*>(y.data_ptr<float>()), n4);
        C10_CUDA_KERNEL_LAUNCH_CHECK();
        done = n4 * 4;
    }
    if (done < n) {   // tail (or the whole tensor when unaligned)
        int64_t rem = n - done;
        int64_t blocks = std::min<int64_t>((rem + threads - 1) / threads, max_blocks);
        gelu_scalar_kernel<<<(unsigned)blocks, (unsigned)threads, 0, stream>>>(
            x.data_ptr<float>(), y.data_ptr<float>(), done, n);
        C10_CUDA_KERNEL_LAUNCH_CHECK();
    }
    return y;
}
"""

cpp_src = "torch::Tensor gelu_cuda(torch::Tensor x, int64_t threads, int64_t max_blocks);"

_gelu_ext = load_inline(
    name="kb_gelu_tanh_vec4",
    cpp_sources=cpp_src,
    cuda_sources=cuda_src,
    functions=["gelu_cuda"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)

# Launch configuration cache keyed on (shape, dtype): the heuristic is cheap, but this keeps
# the Python overhead per call flat. Configs only, never results.
_LAUNCH_CFG = {}


def _launch_cfg(shape, dtype):
    key = (tuple(shape), dtype)
    cfg = _LAUNCH_CFG.get(key)
    if cfg is None:
        n = math.prod(shape)
        threads = 256 if n < (1 << 20) else 512
        sms = torch.cuda.get_device_properties(torch.cuda.current_device()).multi_processor_count
        max_blocks = sms * 8
        cfg = (threads, max_blocks)
        _LAUNCH_CFG[key] = cfg
    return cfg


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        orig = x.dtype
        xf = x.contiguous() if orig == torch.float32 else x.float().contiguous()
        threads, max_blocks = _launch_cfg(xf.shape, xf.dtype)
        y = _gelu_ext.gelu_cuda(xf, threads, max_blocks)
        return y if orig == torch.float32 else y.to(orig)
