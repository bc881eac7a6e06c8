import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <torch/extension.h>
#include <c10/cuda/CUDAStream.h>

__inline__ __device__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
    return v;
}

// Sum of squares, accumulated in double through one atomicAdd per block.
__global__ void sumsq_kernel(const float* __restrict__ x, double* __restrict__ acc, int64_t n) {
    float s = 0.f;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        float v = x[i];
        s = fmaf(v, v, s);
    }
    __shared__ float part[32];
    s = warp_sum(s);
    if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = s;
    __syncthreads();
    if (threadIdx.x < 32) {
        s = threadIdx.x < (blockDim.x >> 5) ? part[threadIdx.x] : 0.f;
        s = warp_sum(s);
        if (threadIdx.x == 0) atomicAdd(acc, (double)s);
    }
}

__global__ void scale_by_inv_norm_kernel(const float* __restrict__ x, const double* __restrict__ acc,
                                         float* __restrict__ y, int64_t n) {
    const float inv = (float)(1.0 / sqrt(*acc));
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        y[i] = x[i] * inv;
    }
}

torch::Tensor frob_normalize(torch::Tensor x, torch::Tensor scratch) {
    TORCH_CHECK(x.is_cuda(), "x must be CUDA");
    TORCH_CHECK(x.scalar_type() == at::kFloat, "x must be float32");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(scratch.scalar_type() == at::kDouble && scratch.numel() >= 1, "scratch must hold one double");
    auto y = torch::empty_like(x);
    const int64_t n = x.numel();
    auto stream = c10::cuda::getCurrentCUDAStream();
    // The accumulator is reset on the stream before every use.
    C10_CUDA_CHECK(cudaMemsetAsync(scratch.data_ptr<double>(), 0, sizeof(double), stream));
    const int threads = 512;
    int dev; C10_CUDA_CHECK(cudaGetDevice(&dev));
    int sms; C10_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    int64_t blocks = std::min<int64_t>((n + threads - 1) / threads, (int64_t)sms * 4);
    blocks = std::max<int64_t>(blocks, 1);
    sumsq_kernel<<<(unsigned)blocks, threads, 0, stream>>>(x.data_ptr<float>(), scratch.data_ptr<double>(), n);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    int64_t blocks2 = std::max<int64_t>(std::min<int64_t>((n + threads - 1) / threads, (int64_t)sms * 16), 1);
    scale_by_inv_norm_kernel<<<(unsigned)blocks2, threads, 0, stream>>>(
        x.data_ptr<float>(), scratch.data_ptr<double>(), y.data_ptr<float>(), n);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
"""

cpp_src = "torch::Tensor frob_normalize(torch::Tensor x, torch::Tensor scratch);"

frob = load_inline(
    name="kb_frobenius_atomic",
    cpp_sources=cpp_src,
    cuda_sources=cuda_src,
    functions=["frob_normalize"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        # One-double accumulator reused by every call (zeroed on the stream each time).
        self.register_buffer("_acc", torch.zeros(1, dtype=torch.float64), persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self._acc.device != x.device:
            self._acc = torch.zeros(1, dtype=torch.float64, device=x.device)
        orig = x.dtype
        y = frob.frob_normalize(x.contiguous().float(), self._acc)
        return y if orig == torch.float32 else y.to(orig)
