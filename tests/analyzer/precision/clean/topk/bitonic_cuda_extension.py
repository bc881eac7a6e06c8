"""Top-k with a CUDA bitonic network built by load_inline, the extension named after
the benchmark (a label, not a probe) and the rows per launch an environment knob.

Each block owns one row: it streams the row through shared memory in tiles of
TILE, keeps a running candidate list of the best K (padded to a power of two)
and merges every tile into it with a bitonic sort of 2*KP elements. The host
side caches the compiled extension in a module global and the scratch tiles
per device.
"""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

import os

# Tuning knob: rows per launch (bounds the scratch a launch holds), read once.
_ROWS_PER_LAUNCH = max(1, int(os.environ.get("TOPK_ROWS_PER_LAUNCH", "4096")))

_CUDA_SRC = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <cfloat>

template <int KP>
__device__ void bitonic_sort_pairs(float* v, int* i, int n) {
  for (int size = 2; size <= n; size <<= 1) {
    for (int stride = size >> 1; stride > 0; stride >>= 1) {
      for (int t = threadIdx.x; t < n / 2; t += blockDim.x) {
        int lo = 2 * t - (t & (stride - 1));
        int hi = lo + stride;
        bool desc = ((lo & size) == 0);
        bool swap = desc ? (v[lo] < v[hi] || (v[lo] == v[hi] && i[lo] > i[hi]))
                         : (v[lo] > v[hi] || (v[lo] == v[hi] && i[lo] < i[hi]));
        if (swap) {
          float tv = v[lo]; v[lo] = v[hi]; v[hi] = tv;
          int ti = i[lo]; i[lo] = i[hi]; i[hi] = ti;
        }
      }
      __syncthreads();
    }
  }
}

template <int KP>
__global__ void bitonic_topk_kernel(const float* __restrict__ x, float* __restrict__ out_v,
                                    long* __restrict__ out_i, int n, int k) {
  __shared__ float sv[2 * KP];
  __shared__ int si[2 * KP];
  const float* row = x + (long)blockIdx.x * n;
  for (int t = threadIdx.x; t < KP; t += blockDim.x) { sv[t] = -FLT_MAX; si[t] = 0x7fffffff; }
  __syncthreads();
  for (int base = 0; base < n; base += KP) {
    for (int t = threadIdx.x; t < KP; t += blockDim.x) {
      int c = base + t;
      sv[KP + t] = c < n ? row[c] : -FLT_MAX;
      si[KP + t] = c < n ? c : 0x7fffffff;
    }
    __syncthreads();
    bitonic_sort_pairs<KP>(sv, si, 2 * KP);
  }
  for (int t = threadIdx.x; t < k; t += blockDim.x) {
    out_v[(long)blockIdx.x * k + t] = sv[t];
    out_i[(long)blockIdx.x * k + t] = si[t];
  }
}

std::vector<torch::Tensor> bitonic_topk(torch::Tensor x, int64_t k) {
  TORCH_CHECK(x.is_cuda() && x.dim() == 2 && x.scalar_type() == torch::kFloat32);
  auto xc = x.contiguous();
  const int rows = xc.size(0), n = xc.size(1);
  auto v = torch::empty({rows, k}, xc.options());
  auto i = torch::empty({rows, k}, xc.options().dtype(torch::kLong));
  if (k <= 16) bitonic_topk_kernel<16><<<rows, 256>>>(xc.data_ptr<float>(), v.data_ptr<float>(), i.data_ptr<long>(), n, k);
  else if (k <= 32) bitonic_topk_kernel<32><<<rows, 256>>>(xc.data_ptr<float>(), v.data_ptr<float>(), i.data_ptr<long>(), n, k);
  else bitonic_topk_kernel<64><<<rows, 256>>>(xc.data_ptr<float>(), v.data_ptr<float>(), i.data_ptr<long>(), n, k);
  return {v, i};
}
"""

_CPP_SRC = "std::vector<torch::Tensor> bitonic_topk(torch::Tensor x, int64_t k);"

_EXT = None


def _ext():
    global _EXT
    if _EXT is None:
        _EXT = load_inline(name="kernelbench_hard_topk_bitonic", cpp_sources=_CPP_SRC, cuda_sources=_CUDA_SRC,
                           functions=["bitonic_topk"], extra_cuda_cflags=["-O3", "--use_fast_math"],
                           verbose=False)
    return _EXT


class Model(nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def forward(self, x):
        parts = [_ext().bitonic_topk(x[r:r + _ROWS_PER_LAUNCH], self.k) for r in range(0, x.shape[0], _ROWS_PER_LAUNCH)]
        return torch.cat([p[0] for p in parts]), torch.cat([p[1] for p in parts])


def get_inputs():
    ranks = torch.rand(64, 8192, device="cuda").argsort(dim=-1)
    return [(ranks.to(torch.float32) - 4096) / 1024.0]


def get_init_inputs():
    return [8]
