# A banned library call inside an embedded CUDA string maps back to its .py line.
# kaudit-test: ignore=no-authored-kernel,reference-resubmitted
import torch
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <torch/extension.h>
#include <cublas_v2.h>

torch::Tensor gemm(torch::Tensor a, torch::Tensor b) {
  auto c = torch::empty({a.size(0), b.size(1)}, a.options());
  cublasHandle_t handle;
  cublasCreate(&handle);
  const float one = 1.0f, zero = 0.0f;
  cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, b.size(1), a.size(0), a.size(1), &one,  // expect: banned-call
              b.data_ptr<float>(), b.size(1), a.data_ptr<float>(), a.size(1), &zero, c.data_ptr<float>(), b.size(1));
  return c;
}
"""

cpp_src = "torch::Tensor gemm(torch::Tensor a, torch::Tensor b);"

ext = load_inline(name="gemm_ext", cpp_sources=cpp_src, cuda_sources=cuda_src, functions=["gemm"])


class ModelNew(torch.nn.Module):
    def forward(self, a, b):
        return ext.gemm(a, b)
