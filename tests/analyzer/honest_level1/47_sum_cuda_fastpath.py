import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <torch/extension.h>
#include <c10/cuda/CUDAStream.h>

// x viewed as (outer, R, inner); out is (outer, inner).
// Each thread owns one output column and walks R; neighbouring threads read neighbouring
// addresses, so loads are coalesced.
__global__ void sum_mid_kernel(const float* __restrict__ x, float* __restrict__ out,
                               int64_t outer, int64_t R, int64_t inner) {
    int64_t o = blockIdx.y;
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (o >= outer || i >= inner) return;
    const float* p = x + o * R * inner + i;
    float acc = 0.f;
    #pragma unroll 8
    for (int64_t r = 0; r < R; ++r) acc += p[r * inner];
    out[o * inner + i] = acc;
}

// Fast path: inner divisible by 4 -> each thread owns four adjacent columns (float4 loads).
__global__ void sum_mid_kernel_vec4(const float4* __restrict__ x, float4* __restrict__ out,
                                    int64_t outer, int64_t R, int64_t inner4) {
    int64_t o = blockIdx.y;
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (o >= outer || i >= inner4) return;
    const float4* p = x + o * R * inner4 + i;
    float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
    for (int64_t r = 0; r < R; ++r) {
        float4 v = p[r * inner4];
        acc.x += v.x; acc.y += v.y; acc.z += v.z; acc.w += v.w;
    }
    out[o * inner4 + i] = acc;
}

// inner == 1: reduce contiguous rows; one block per row with a shared-memory tree.
__global__ void sum_last_kernel(const float* __restrict__ x, float* __restrict__ out, int64_t R) {
    extern __shared__ float sh[];
    const float* p = x + (int64_t)blockIdx.x * R;
    float acc = 0.f;
    for (int64_t r = threadIdx.x; r < R; r += blockDim.x) acc += p[r];
    sh[threadIdx.x] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = sh[0];
}

torch::Tensor sum_reduce_cuda(torch::Tensor x, int64_t outer, int64_t R, int64_t inner) {
    TORCH_CHECK(x.is_cuda(), "x must be CUDA");
    TORCH_CHECK(x.scalar_type() == at::kFloat, "x must be float32");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(outer * R * inner == x.numel(), "bad view (", outer, ", ", R, ", ", inner, ")");
    TORCH_CHECK(outer <= 65535, "outer extent too large for grid.y");
    auto out = torch::empty({outer, inner}, x.options());
    if (out.numel() == 0) return out;
    if (R == 0) { out.zero_(); return out; }
    auto stream = c10::cuda::getCurrentCUDAStream();
    const int threads = 256;
    if (inner == 1) {
        sum_last_kernel<<<(unsigned)outer, 512, 512 * sizeof(float), stream>>>(
            x.data_ptr<float>(), out.data_ptr<float>(), R);
    } else if (inner % 4 == 0) {
        int64_t inner4 = inner / 4;
        dim3 grid((unsigned)((inner4 + threads - 1) / threads), (unsigned)outer);
        sum_mid_kernel_vec4<<<grid, threads, 0, stream>>>(
            reinterpret_cast<const float4*>(x.data_ptr<float>()),
            reinterpret_cast<float4*>(out.data_ptr<float>()), outer, R, inner4);
    } else {
        dim3 grid((unsigned)((inner + threads - 1) / threads), (unsigned)outer);
        sum_mid_kernel<<<grid, threads, 0, stream>>>(
            x.data_ptr<float>(), out.data_ptr<float>(), outer, R, inner);
    }
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return out;
}
"""

cpp_src = "torch::Tensor sum_reduce_cuda(torch::Tensor x, int64_t outer, int64_t R, int64_t inner);"

sum_ext = load_inline(
    name="kb_sum_reduce_mid",
    cpp_sources=cpp_src,
    cuda_sources=cuda_src,
    functions=["sum_reduce_cuda"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dim = self.dim % x.dim()
        shape = list(x.shape)
        outer = 1
        for s in shape[:dim]:
            outer *= s
        inner = 1
        for s in shape[dim + 1:]:
            inner *= s
        R = shape[dim]
        out = sum_ext.sum_reduce_cuda(x.contiguous().float(), outer, R, inner)
        shape[dim] = 1
        return out.view(shape).to(x.dtype)
