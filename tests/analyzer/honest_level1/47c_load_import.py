import os
import tempfile

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load

_SRC = r"""
#include <torch/extension.h>
#include <c10/cuda/CUDAStream.h>

// Warp-per-output reduction over the middle axis of (outer, R, inner), for small inner sizes
// the thread-per-column layout leaves the GPU idle, so each output gets a whole warp.
__global__ void sum_mid_warp_kernel(const float* __restrict__ x, float* __restrict__ out,
                                    int64_t outer, int64_t R, int64_t inner) {
    const int64_t warp = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    if (warp >= outer * inner) return;
    const int64_t o = warp / inner, i = warp % inner;
    const float* p = x + o * R * inner + i;
    float s = 0.f;
    for (int64_t r = lane; r < R; r += 32) s += p[r * inner];
    for (int k = 16; k > 0; k >>= 1) s += __shfl_down_sync(0xffffffff, s, k);
    if (lane == 0) out[warp] = s;
}

// Column-per-thread layout for wide inner sizes (coalesced across threads).
__global__ void sum_mid_col_kernel(const float* __restrict__ x, float* __restrict__ out,
                                   int64_t outer, int64_t R, int64_t inner) {
    const int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= outer * inner) return;
    const int64_t o = idx / inner, i = idx % inner;
    const float* p = x + o * R * inner + i;
    float s = 0.f;
    for (int64_t r = 0; r < R; ++r) s += p[r * inner];
    out[idx] = s;
}

torch::Tensor sum_mid(torch::Tensor x, int64_t outer, int64_t R, int64_t inner) {
    TORCH_CHECK(x.is_cuda() && x.is_contiguous() && x.scalar_type() == at::kFloat, "contiguous float32 CUDA input");
    TORCH_CHECK(outer * R * inner == x.numel(), "bad view");
    auto out = torch::zeros({outer, inner}, x.options());
    if (out.numel() == 0 || R == 0) return out;
    auto stream = c10::cuda::getCurrentCUDAStream();
    const int64_t n = outer * inner;
    if (inner < 32) {
        const int64_t threads = 256, blocks = (n * 32 + threads - 1) / threads;
        sum_mid_warp_kernel<<<(unsigned)blocks, threads, 0, stream>>>(x.data_ptr<float>(), out.data_ptr<float>(), outer, R, inner);
    } else {
        const int64_t threads = 256, blocks = (n + threads - 1) / threads;
        sum_mid_col_kernel<<<(unsigned)blocks, threads, 0, stream>>>(x.data_ptr<float>(), out.data_ptr<float>(), outer, R, inner);
    }
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return out;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("sum_mid", &sum_mid, "sum over the middle axis"); }
"""

_EXT = None


def _ext():
    # Built on first use from a source file in a private temporary folder.
    global _EXT
    if _EXT is None:
        d = tempfile.mkdtemp(prefix="kb_sum_")
        path = os.path.join(d, "sum_mid.cu")
        with open(path, "w") as f:
            f.write(_SRC)
        _EXT = load(name="kb_sum_mid_file", sources=[path], extra_cuda_cflags=["-O3"], verbose=False)
    return _EXT


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim
        _ext()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dim = self.dim % x.dim()
        shape = list(x.shape)
        R = shape[dim]
        outer = 1
        for s in shape[:dim]:
            outer *= s
        inner = 1
        for s in shape[dim + 1:]:
            inner *= s
        out = _ext().sum_mid(x.contiguous().float(), outer, R, inner)
        shape[dim] = 1
        return out.view(shape).to(x.dtype)
