# Honest, with the build most real submissions have: the CUDA extension is
# compiled by load_inline inside the first forward (tens of seconds, longer
# than a call's limit). The first call of each shape has the set-up budget,
# so this must come out correct and clean, with the build's time in
# run.json's first_calls.
import torch
from torch.utils.cpp_extension import load_inline

_CUDA = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void silu_mul_kernel(const float* x, const float* g, float* out, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) {
    float v = g[i];
    out[i] = v / (1.0f + __expf(-v)) * x[i];
  }
}

torch::Tensor silu_mul(torch::Tensor x, torch::Tensor g) {
  auto xc = x.contiguous();
  auto gc = g.contiguous();
  auto out = torch::empty_like(xc);
  long n = xc.numel();
  silu_mul_kernel<<<(n + 255) / 256, 256>>>(xc.data_ptr<float>(), gc.data_ptr<float>(), out.data_ptr<float>(), n);
  return out;
}
"""
_CPP = "torch::Tensor silu_mul(torch::Tensor x, torch::Tensor g);"
_ext = None


def _build():
    global _ext
    if _ext is None:
        _ext = load_inline(name="kaudit_lazy_silu_mul", cpp_sources=_CPP, cuda_sources=_CUDA,
                           functions=["silu_mul"], extra_cuda_cflags=["-O3"], verbose=False)
    return _ext


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, g):
        return _build().silu_mul(x, g)
