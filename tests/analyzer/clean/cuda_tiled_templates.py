# Clean: a load_inline CUDA GEMM with shared-memory tiling, register blocking
# and CUTLASS-style compile-time tile parameters, dispatched on the current
# PyTorch stream.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cuda_runtime.h>

template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN))
tiled_gemm_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                  int M, int N, int K) {
    __shared__ float As[BK][BM];
    __shared__ float Bs[BK][BN];
    const int threads = (BM / TM) * (BN / TN);
    const int tid = threadIdx.x;
    const int ty = tid / (BN / TN), tx = tid % (BN / TN);
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    float acc[TM][TN] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int i = tid; i < BM * BK; i += threads) {
            int r = i / BK, c = i % BK;
            int gr = row0 + r, gc = k0 + c;
            As[c][r] = (gr < M && gc < K) ? A[gr * K + gc] : 0.0f;
        }
        for (int i = tid; i < BK * BN; i += threads) {
            int r = i / BN, c = i % BN;
            int gr = k0 + r, gc = col0 + c;
            Bs[r][c] = (gr < K && gc < N) ? B[gr * N + gc] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            float a_frag[TM], b_frag[TN];
#pragma unroll
            for (int m = 0; m < TM; ++m) a_frag[m] = As[kk][ty * TM + m];
#pragma unroll
            for (int n = 0; n < TN; ++n) b_frag[n] = Bs[kk][tx * TN + n];
#pragma unroll
            for (int m = 0; m < TM; ++m)
#pragma unroll
                for (int n = 0; n < TN; ++n) acc[m][n] = fmaf(a_frag[m], b_frag[n], acc[m][n]);
        }
        __syncthreads();
    }
    for (int m = 0; m < TM; ++m)
        for (int n = 0; n < TN; ++n) {
            int r = row0 + ty * TM + m, c = col0 + tx * TN + n;
            if (r < M && c < N) C[r * N + c] = acc[m][n];
        }
}

template <int BM, int BN, int BK, int TM, int TN>
void launch_tiled(const torch::Tensor& a, const torch::Tensor& b, torch::Tensor& c) {
    const int M = a.size(0), K = a.size(1), N = b.size(1);
    dim3 block((BM / TM) * (BN / TN));
    dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    tiled_gemm_kernel<BM, BN, BK, TM, TN><<<grid, block, 0, stream>>>(
        a.data_ptr<float>(), b.data_ptr<float>(), c.data_ptr<float>(), M, N, K);
}

torch::Tensor tiled_gemm(torch::Tensor a, torch::Tensor b) {
    TORCH_CHECK(a.is_cuda() && b.is_cuda(), "inputs must be CUDA tensors");
    TORCH_CHECK(a.scalar_type() == torch::kFloat32, "fp32 only");
    auto a_c = a.contiguous();
    auto b_c = b.contiguous();
    auto c = torch::empty({a.size(0), b.size(1)}, a.options());
    if (a.size(0) >= 128) {
        launch_tiled<128, 128, 8, 8, 8>(a_c, b_c, c);
    } else {
        launch_tiled<64, 64, 8, 4, 4>(a_c, b_c, c);
    }
    return c;
}
"""

cpp_source = "torch::Tensor tiled_gemm(torch::Tensor a, torch::Tensor b);"

_tiled = load_inline(
    name="clean_tiled_gemm",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["tiled_gemm"],
    extra_cuda_cflags=["-O3", "--use_fast_math"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return _tiled.tiled_gemm(a, b)
