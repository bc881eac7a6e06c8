# Benchmark input: a load_inline submission of about 300 lines with about 150
# lines of embedded CUDA (a shared-memory tiled bf16 GEMM with a bias epilogue,
# CUTLASS-style templates), the analyzer's heaviest common case.
import os

import torch
from torch.utils.cpp_extension import load_inline

CUDA_SRC = r"""#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <torch/extension.h>

namespace tiles {

template <int BM, int BN, int BK>
struct SharedTile {
  __nv_bfloat16 a[BM][BK + 8];
  __nv_bfloat16 b[BK][BN + 8];
};

template <int BM, int BN, int BK, int TM, int TN>
__device__ __forceinline__ void load_tiles(SharedTile<BM, BN, BK>& s, const __nv_bfloat16* __restrict__ A,
                                           const __nv_bfloat16* __restrict__ B, int M, int N, int K,
                                           int row0, int col0, int k0) {
  const int tid = threadIdx.x;
  const int threads = blockDim.x;
  for (int i = tid; i < BM * BK; i += threads) {
    const int r = i / BK, c = i % BK;
    const int gr = row0 + r, gc = k0 + c;
    s.a[r][c] = (gr < M && gc < K) ? A[gr * K + gc] : __float2bfloat16(0.0f);
  }
  for (int i = tid; i < BK * BN; i += threads) {
    const int r = i / BN, c = i % BN;
    const int gr = k0 + r, gc = col0 + c;
    s.b[r][c] = (gr < K && gc < N) ? B[gr * N + gc] : __float2bfloat16(0.0f);
  }
}

template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN))
gemm_bf16_kernel(const __nv_bfloat16* __restrict__ A, const __nv_bfloat16* __restrict__ B,
                 __nv_bfloat16* __restrict__ C, int M, int N, int K) {
  __shared__ SharedTile<BM, BN, BK> tile;
  const int row0 = blockIdx.y * BM;
  const int col0 = blockIdx.x * BN;
  const int tr = (threadIdx.x / (BN / TN)) * TM;
  const int tc = (threadIdx.x % (BN / TN)) * TN;
  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

  for (int k0 = 0; k0 < K; k0 += BK) {
    load_tiles<BM, BN, BK, TM, TN>(tile, A, B, M, N, K, row0, col0, k0);
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      float a_frag[TM];
      float b_frag[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) a_frag[i] = __bfloat162float(tile.a[tr + i][kk]);
#pragma unroll
      for (int j = 0; j < TN; ++j) b_frag[j] = __bfloat162float(tile.b[kk][tc + j]);
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a_frag[i], b_frag[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int r = row0 + tr + i, c = col0 + tc + j;
      if (r < M && c < N) C[r * N + c] = __float2bfloat16(acc[i][j]);
    }
}

}  // namespace tiles

__global__ void add_bias_kernel(__nv_bfloat16* __restrict__ C, const __nv_bfloat16* __restrict__ bias,
                                int M, int N) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < M * N) {
    const int c = i % N;
    C[i] = __float2bfloat16(__bfloat162float(C[i]) + __bfloat162float(bias[c]));
  }
}

torch::Tensor gemm_bias(torch::Tensor a, torch::Tensor b, torch::Tensor bias) {
  TORCH_CHECK(a.is_cuda() && b.is_cuda() && bias.is_cuda(), "inputs must be CUDA tensors");
  TORCH_CHECK(a.dtype() == torch::kBFloat16 && b.dtype() == torch::kBFloat16, "bf16 only");
  TORCH_CHECK(a.size(1) == b.size(0), "inner dimensions differ");
  const int M = a.size(0), K = a.size(1), N = b.size(1);
  auto c = torch::empty({M, N}, a.options());
  constexpr int BM = 128, BN = 128, BK = 32, TM = 8, TN = 8;
  dim3 block((BM / TM) * (BN / TN));
  dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
  auto stream = at::cuda::getCurrentCUDAStream();
  tiles::gemm_bf16_kernel<BM, BN, BK, TM, TN><<<grid, block, 0, stream>>>(
      reinterpret_cast<const __nv_bfloat16*>(a.data_ptr<at::BFloat16>()),
      reinterpret_cast<const __nv_bfloat16*>(b.data_ptr<at::BFloat16>()),
      reinterpret_cast<__nv_bfloat16*>(c.data_ptr<at::BFloat16>()), M, N, K);
  const int total = M * N;
  add_bias_kernel<<<(total + 255) / 256, 256, 0, stream>>>(
      reinterpret_cast<__nv_bfloat16*>(c.data_ptr<at::BFloat16>()),
      reinterpret_cast<const __nv_bfloat16*>(bias.data_ptr<at::BFloat16>()), M, N);
  return c;
}
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread
// tile configuration notes: BM=128 BN=128 BK=32, 8x8 outputs per thread"""

CPP_SRC = "torch::Tensor gemm_bias(torch::Tensor a, torch::Tensor b, torch::Tensor bias);"

_ext = None


def _extension():
    global _ext
    if _ext is None:
        _ext = load_inline(
            name="gemm_bias_ext",
            cpp_sources=CPP_SRC,
            cuda_sources=CUDA_SRC,
            functions=["gemm_bias"],
            extra_cuda_cflags=["-O3", "--use_fast_math", "-arch=sm_90"],
            verbose=False,
        )
    return _ext


def _validate_0(x: torch.Tensor, name: str) -> None:
    """Checks done before launching: device, dtype, layout of input 0."""
    if not x.is_cuda:
        raise ValueError(f"{name} must live on the GPU")
    if x.dtype != torch.bfloat16:
        raise TypeError(f"{name} must be bfloat16, got {x.dtype}")
    if not x.is_contiguous():
        x = x.contiguous()


def _validate_1(x: torch.Tensor, name: str) -> None:
    """Checks done before launching: device, dtype, layout of input 1."""
    if not x.is_cuda:
        raise ValueError(f"{name} must live on the GPU")
    if x.dtype != torch.bfloat16:
        raise TypeError(f"{name} must be bfloat16, got {x.dtype}")
    if not x.is_contiguous():
        x = x.contiguous()


def _validate_2(x: torch.Tensor, name: str) -> None:
    """Checks done before launching: device, dtype, layout of input 2."""
    if not x.is_cuda:
        raise ValueError(f"{name} must live on the GPU")
    if x.dtype != torch.bfloat16:
        raise TypeError(f"{name} must be bfloat16, got {x.dtype}")
    if not x.is_contiguous():
        x = x.contiguous()


def _validate_3(x: torch.Tensor, name: str) -> None:
    """Checks done before launching: device, dtype, layout of input 3."""
    if not x.is_cuda:
        raise ValueError(f"{name} must live on the GPU")
    if x.dtype != torch.bfloat16:
        raise TypeError(f"{name} must be bfloat16, got {x.dtype}")
    if not x.is_contiguous():
        x = x.contiguous()


def _validate_4(x: torch.Tensor, name: str) -> None:
    """Checks done before launching: device, dtype, layout of input 4."""
    if not x.is_cuda:
        raise ValueError(f"{name} must live on the GPU")
    if x.dtype != torch.bfloat16:
        raise TypeError(f"{name} must be bfloat16, got {x.dtype}")
    if not x.is_contiguous():
        x = x.contiguous()


def _validate_5(x: torch.Tensor, name: str) -> None:
    """Checks done before launching: device, dtype, layout of input 5."""
    if not x.is_cuda:
        raise ValueError(f"{name} must live on the GPU")
    if x.dtype != torch.bfloat16:
        raise TypeError(f"{name} must be bfloat16, got {x.dtype}")
    if not x.is_contiguous():
        x = x.contiguous()


def _validate_6(x: torch.Tensor, name: str) -> None:
    """Checks done before launching: device, dtype, layout of input 6."""
    if not x.is_cuda:
        raise ValueError(f"{name} must live on the GPU")
    if x.dtype != torch.bfloat16:
        raise TypeError(f"{name} must be bfloat16, got {x.dtype}")
    if not x.is_contiguous():
        x = x.contiguous()


def _validate_7(x: torch.Tensor, name: str) -> None:
    """Checks done before launching: device, dtype, layout of input 7."""
    if not x.is_cuda:
        raise ValueError(f"{name} must live on the GPU")
    if x.dtype != torch.bfloat16:
        raise TypeError(f"{name} must be bfloat16, got {x.dtype}")
    if not x.is_contiguous():
        x = x.contiguous()


def _validate_8(x: torch.Tensor, name: str) -> None:
    """Checks done before launching: device, dtype, layout of input 8."""
    if not x.is_cuda:
        raise ValueError(f"{name} must live on the GPU")
    if x.dtype != torch.bfloat16:
        raise TypeError(f"{name} must be bfloat16, got {x.dtype}")
    if not x.is_contiguous():
        x = x.contiguous()


class ModelNew(torch.nn.Module):
    """C = A @ B + bias with a hand-written tiled kernel."""

    def __init__(self, n: int = 4096):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.zeros(n, dtype=torch.bfloat16))

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        _validate_0(a, "a")
        _validate_1(b, "b")
        return _extension().gemm_bias(a.contiguous(), b.contiguous(), self.bias)


def get_inputs():
    a = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    return [a, b]


def get_init_inputs():
    return [4096]
