# Clean: an authored kernel launched through ordinary Python indirection (getattr_on_extension);
# no-authored-kernel must stay silent (a false alarm on honest code before).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <torch/extension.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

// Exact (erf) GELU, computed in fp32 for every storage type.
__device__ __forceinline__ float gelu_erf(float x) { return 0.5f * x * (1.f + erff(x * 0.70710678118654752f)); }

template <typename T> __device__ __forceinline__ float to_f(T v);
template <> __device__ __forceinline__ float to_f<float>(float v) { return v; }
template <> __device__ __forceinline__ float to_f<__half>(__half v) { return __half2float(v); }
template <> __device__ __forceinline__ float to_f<__nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T> __device__ __forceinline__ T from_f(float v);
template <> __device__ __forceinline__ float from_f<float>(float v) { return v; }
template <> __device__ __forceinline__ __half from_f<__half>(float v) { return __float2half(v); }
template <> __device__ __forceinline__ __nv_bfloat16 from_f<__nv_bfloat16>(float v) { return __float2bfloat16(v); }

template <typename T>
__global__ void gelu_kernel(const T* __restrict__ x, T* __restrict__ y, int64_t n) {
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        y[i] = from_f<T>(gelu_erf(to_f<T>(x[i])));
}

template <typename T>
torch::Tensor launch(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "x must be CUDA");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    auto y = torch::empty_like(x);
    const int64_t n = x.numel();
    if (n == 0) return y;
    const int threads = 256;
    int64_t blocks = std::min<int64_t>((n + threads - 1) / threads, 132LL * 16);
    gelu_kernel<T><<<(unsigned)blocks, threads, 0, c10::cuda::getCurrentCUDAStream()>>>(
        reinterpret_cast<const T*>(x.data_ptr()), reinterpret_cast<T*>(y.data_ptr()), n);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}

torch::Tensor gelu_f32(torch::Tensor x) { TORCH_CHECK(x.scalar_type() == at::kFloat, "expected float32"); return launch<float>(x); }
torch::Tensor gelu_f16(torch::Tensor x) { TORCH_CHECK(x.scalar_type() == at::kHalf, "expected float16"); return launch<__half>(x); }
torch::Tensor gelu_bf16(torch::Tensor x) { TORCH_CHECK(x.scalar_type() == at::kBFloat16, "expected bfloat16"); return launch<__nv_bfloat16>(x); }
"""

cpp_src = """
torch::Tensor gelu_f32(torch::Tensor x);
torch::Tensor gelu_f16(torch::Tensor x);
torch::Tensor gelu_bf16(torch::Tensor x);
"""

_ext = load_inline(
    name="kb_gelu_erf_multi_dtype",
    cpp_sources=cpp_src,
    cuda_sources=cuda_src,
    functions=["gelu_f32", "gelu_f16", "gelu_bf16"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)

_SUFFIX = {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16"}


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        suffix = _SUFFIX.get(x.dtype)
        if suffix is None:
            raise TypeError(f"unsupported dtype {x.dtype}")
        return getattr(_ext, f"gelu_{suffix}")(x.contiguous())
