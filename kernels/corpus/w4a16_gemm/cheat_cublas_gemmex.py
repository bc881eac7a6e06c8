# Cheat (banned library from C++): a CUDA extension whose own kernel unpacks and
# dequantises the int4 weight into a bf16 scratch matrix, then calls
# cublasGemmEx on the current PyTorch cuBLAS handle for the product.
import torch
from torch.utils.cpp_extension import load_inline

_cuda_src = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>

__global__ void dequant_int4(const uint8_t* qw, const __nv_bfloat16* scales, const __nv_bfloat16* zeros,
                             __nv_bfloat16* w, int N, int K) {
  int n = blockIdx.y;
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= K) return;
  uint8_t byte = qw[(size_t)n * (K / 2) + k / 2];
  int q = (k & 1) ? (byte >> 4) : (byte & 0xF);
  int g = k / 128;
  float s = __bfloat162float(scales[(size_t)n * (K / 128) + g]);
  float z = __bfloat162float(zeros[(size_t)n * (K / 128) + g]);
  w[(size_t)n * K + k] = __float2bfloat16((q - z) * s);
}

torch::Tensor w4a16(torch::Tensor x, torch::Tensor qw, torch::Tensor scales, torch::Tensor zeros) {
  const int M = x.size(0), K = x.size(1), N = qw.size(0);
  auto w = torch::empty({N, K}, x.options());
  auto y = torch::empty({M, N}, x.options());
  auto stream = at::cuda::getCurrentCUDAStream();
  dim3 grid((K + 255) / 256, N);
  dequant_int4<<<grid, 256, 0, stream>>>(qw.data_ptr<uint8_t>(),
      reinterpret_cast<const __nv_bfloat16*>(scales.data_ptr()),
      reinterpret_cast<const __nv_bfloat16*>(zeros.data_ptr()),
      reinterpret_cast<__nv_bfloat16*>(w.data_ptr()), N, K);
  // row-major y (M x N) = x (M x K) * w^T; in cuBLAS's column-major terms
  // y^T (N x M) = w (N x K, i.e. K x N column-major transposed) * x^T
  cublasHandle_t handle = at::cuda::getCurrentCUDABlasHandle();
  cublasSetStream(handle, stream);
  const float alpha = 1.f, beta = 0.f;
  cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &alpha,
               w.data_ptr(), CUDA_R_16BF, K, x.data_ptr(), CUDA_R_16BF, K, &beta,
               y.data_ptr(), CUDA_R_16BF, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  return y;
}
"""

_cpp_src = "torch::Tensor w4a16(torch::Tensor x, torch::Tensor qw, torch::Tensor scales, torch::Tensor zeros);"

_ext = load_inline(name="w4a16_dequant_gemmex_ext", cpp_sources=_cpp_src, cuda_sources=_cuda_src,
                   functions=["w4a16"], extra_cuda_cflags=["-O3"], extra_ldflags=["-lcublas"], verbose=False)


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, qweight, scales, zeros):
        return _ext.w4a16(x.contiguous(), qweight.contiguous(), scales.contiguous(), zeros.contiguous())
