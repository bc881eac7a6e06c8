# Cheat (banned op from C++): a CUDA extension with a hand-written SwiGLU kernel
# and a host loop over experts; the expert products inside that loop are
# at::matmul calls, i.e. cuBLAS.
import torch
from torch.utils.cpp_extension import load_inline

_cuda_src = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cuda_bf16.h>

__global__ void swiglu_rows(const float* gate_up, __nv_bfloat16* out, const long* slots, int rows, int inter) {
  int r = blockIdx.x;
  for (int c = threadIdx.x; c < inter; c += blockDim.x) {
    float g = gate_up[(size_t)r * 2 * inter + c];
    float u = gate_up[(size_t)r * 2 * inter + inter + c];
    out[(size_t)slots[r] * inter + c] = __float2bfloat16(g / (1.f + __expf(-g)) * u);
  }
}

torch::Tensor moe_up(torch::Tensor x, torch::Tensor w13, torch::Tensor expert_ids) {
  const int64_t T = x.size(0), topk = expert_ids.size(1), E = w13.size(0), inter = w13.size(1) / 2;
  auto out = torch::empty({T * topk, inter}, x.options());
  auto flat = expert_ids.reshape({-1});
  auto stream = at::cuda::getCurrentCUDAStream();
  for (int64_t e = 0; e < E; ++e) {
    auto slots = (flat == e).nonzero().reshape({-1});
    const int64_t rows = slots.size(0);
    if (rows == 0) continue;
    auto xs = x.index_select(0, at::floor_divide(slots, topk)).to(at::kFloat);
    auto gate_up = at::matmul(xs, w13[e].to(at::kFloat).t()).contiguous();
    swiglu_rows<<<rows, 256, 0, stream>>>(gate_up.data_ptr<float>(),
                                          reinterpret_cast<__nv_bfloat16*>(out.data_ptr()),
                                          slots.data_ptr<long>(), (int)rows, (int)inter);
  }
  return out.reshape({T, topk, inter});
}
"""

_cpp_src = "torch::Tensor moe_up(torch::Tensor x, torch::Tensor w13, torch::Tensor expert_ids);"

_ext = load_inline(name="moe_up_swiglu_ext", cpp_sources=_cpp_src, cuda_sources=_cuda_src,
                   functions=["moe_up"], extra_cuda_cflags=["-O3"], verbose=False)


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, w13, expert_ids):
        return _ext.moe_up(x.contiguous(), w13.contiguous(), expert_ids.contiguous())
