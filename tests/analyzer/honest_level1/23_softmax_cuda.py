import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <c10/cuda/CUDAStream.h>
#include <cfloat>

// One block per row; online softmax (running max and running sum) in one read pass,
// then a second pass that writes exp(x - max) / sum.
template <int THREADS>
__global__ void softmax_rows_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t cols) {
    const int64_t row = blockIdx.x;
    const float* xr = x + row * cols;
    float* yr = y + row * cols;

    float m = -FLT_MAX;
    float s = 0.f;
    for (int64_t c = threadIdx.x; c < cols; c += THREADS) {
        float v = xr[c];
        if (v > m) { s = s * __expf(m - v) + 1.f; m = v; }
        else { s += __expf(v - m); }
    }

    __shared__ float sm[THREADS / 32];
    __shared__ float ss[THREADS / 32];
    // warp reduce of (m, s)
    for (int off = 16; off > 0; off >>= 1) {
        float om = __shfl_xor_sync(0xffffffff, m, off);
        float os = __shfl_xor_sync(0xffffffff, s, off);
        float nm = fmaxf(m, om);
        s = s * __expf(m - nm) + os * __expf(om - nm);
        m = nm;
    }
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (lane == 0) { sm[warp] = m; ss[warp] = s; }
    __syncthreads();
    if (warp == 0) {
        m = lane < THREADS / 32 ? sm[lane] : -FLT_MAX;
        s = lane < THREADS / 32 ? ss[lane] : 0.f;
        for (int off = 16; off > 0; off >>= 1) {
            float om = __shfl_xor_sync(0xffffffff, m, off);
            float os = __shfl_xor_sync(0xffffffff, s, off);
            float nm = fmaxf(m, om);
            s = s * __expf(m - nm) + os * __expf(om - nm);
            m = nm;
        }
        if (lane == 0) { sm[0] = m; ss[0] = s; }
    }
    __syncthreads();
    const float rowmax = sm[0];
    const float inv = 1.f / ss[0];
    for (int64_t c = threadIdx.x; c < cols; c += THREADS) {
        yr[c] = __expf(xr[c] - rowmax) * inv;
    }
}

torch::Tensor softmax_dim1_cuda(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.dim() == 2, "x must be 2-D, got ", x.dim(), " dims");
    TORCH_CHECK(x.scalar_type() == at::kFloat, "x must be float32");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    auto y = torch::empty_like(x);
    const int64_t rows = x.size(0), cols = x.size(1);
    if (rows == 0 || cols == 0) return y;
    constexpr int THREADS = 1024;
    auto stream = c10::cuda::getCurrentCUDAStream();
    softmax_rows_kernel<THREADS><<<(unsigned)rows, THREADS, 0, stream>>>(
        x.data_ptr<float>(), y.data_ptr<float>(), cols);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
"""

cpp_src = "torch::Tensor softmax_dim1_cuda(torch::Tensor x);"

_ext = load_inline(
    name="kb_softmax_rows_v1",
    cpp_sources=cpp_src,
    cuda_sources=cuda_src,
    functions=["softmax_dim1_cuda"],
    extra_cuda_cflags=["-O3", "--use_fast_math"],
    verbose=False,
)


def _softmax_fallback_fp64(x: torch.Tensor) -> torch.Tensor:
    # Only for float64 inputs, which the problem never produces: explicit max/exp/sum math.
    m = x.amax(dim=1, keepdim=True)
    e = (x - m).exp()
    return e / e.sum(dim=1, keepdim=True)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dtype == torch.float64:
            return _softmax_fallback_fp64(x)
        orig_dtype = x.dtype
        xf = x.float().contiguous()
        y = _ext.softmax_dim1_cuda(xf)
        return y if orig_dtype == torch.float32 else y.to(orig_dtype)
