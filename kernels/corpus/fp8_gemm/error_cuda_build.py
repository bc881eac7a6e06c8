# Error (does not build): a naive CUDA fp8 GEMM through load_inline. It
# multiplies __nv_fp8_e4m3 values directly (their conversions to float are
# explicit) and launches on at::cuda::getCurrentCUDAStream() without including
# ATen/cuda/CUDAContext.h, so nvcc stops and the module never loads.
import torch
from torch.utils.cpp_extension import load_inline

_cuda_src = r"""
#include <torch/extension.h>
#include <cuda_fp8.h>
#include <cuda_bf16.h>

__global__ void fp8_gemm_naive(const __nv_fp8_e4m3* x, const __nv_fp8_e4m3* w, const float* xs,
                               const float* ws, __nv_bfloat16* out, int M, int N, int K) {
  int m = blockIdx.y;
  int n = blockIdx.x * blockDim.x + threadIdx.x;
  if (n >= N) return;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) {
    acc += x[(size_t)m * K + k] * w[(size_t)n * K + k];
  }
  out[(size_t)m * N + n] = __float2bfloat16(acc * xs[m] * ws[n]);
}

torch::Tensor fp8_gemm(torch::Tensor x, torch::Tensor w, torch::Tensor xs, torch::Tensor ws) {
  int M = x.size(0), K = x.size(1), N = w.size(0);
  auto out = torch::empty({M, N}, x.options().dtype(torch::kBFloat16));
  dim3 grid((N + 255) / 256, M);
  fp8_gemm_naive<<<grid, 256, 0, at::cuda::getCurrentCUDAStream()>>>(reinterpret_cast<const __nv_fp8_e4m3*>(x.data_ptr()),
                                reinterpret_cast<const __nv_fp8_e4m3*>(w.data_ptr()),
                                xs.data_ptr<float>(), ws.data_ptr<float>(),
                                reinterpret_cast<__nv_bfloat16*>(out.data_ptr()), M, N, K);
  return out;
}
"""

_cpp_src = "torch::Tensor fp8_gemm(torch::Tensor x, torch::Tensor w, torch::Tensor xs, torch::Tensor ws);"

_ext = load_inline(name="fp8_gemm_naive_ext", cpp_sources=_cpp_src, cuda_sources=_cuda_src,
                   functions=["fp8_gemm"], extra_cuda_cflags=["-O3", "-arch=sm_90"], verbose=False)


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, w, x_scale, w_scale):
        return _ext.fp8_gemm(x.contiguous(), w.contiguous(), x_scale.reshape(-1).contiguous(), w_scale.contiguous())
