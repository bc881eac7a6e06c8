# Clean: row-wise top-k as a hand-written CUDA kernel built lazily with
# torch.utils.cpp_extension.load_inline (the first forward builds it, a
# module-level variable keeps it). One 512-thread block per row runs k rounds;
# in each round every thread scans its strided share of the row for the best
# element ranked after the previous answer (larger value first, lower index on
# equal values) and a shared-memory tree reduction picks the block's best. No
# library selection or sort; any n and k <= n.
import torch
from torch.utils.cpp_extension import load_inline

_CPP = "std::vector<torch::Tensor> row_topk(torch::Tensor x, int64_t k);"

_CUDA = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <climits>
#include <vector>

constexpr int THREADS = 512;

// (v, i) ranks before (bv, bi): a larger value, or an equal value at a lower index
__device__ __forceinline__ bool ranks_before(float v, int i, float bv, int bi) {
  return v > bv || (v == bv && i < bi);
}

__global__ void row_topk_kernel(const float* __restrict__ x, float* __restrict__ vals,
                                int64_t* __restrict__ idxs, int n, int k, long long stride_row) {
  __shared__ float sv[THREADS];
  __shared__ int si[THREADS];
  const int tid = threadIdx.x;
  const float* row = x + (long long)blockIdx.x * stride_row;
  float prev_v = INFINITY;
  int prev_i = -1;
  for (int j = 0; j < k; ++j) {
    float bv = -INFINITY;
    int bi = INT_MAX;  // INT_MAX: nothing found yet
    for (int c = tid; c < n; c += THREADS) {
      const float v = row[c];
      const bool eligible = v < prev_v || (v == prev_v && c > prev_i);
      if (eligible && (bi == INT_MAX || ranks_before(v, c, bv, bi))) {
        bv = v;
        bi = c;
      }
    }
    sv[tid] = bv;
    si[tid] = bi;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
      if (tid < s) {
        const float ov = sv[tid + s];
        const int oi = si[tid + s];
        if (oi != INT_MAX && (si[tid] == INT_MAX || ranks_before(ov, oi, sv[tid], si[tid]))) {
          sv[tid] = ov;
          si[tid] = oi;
        }
      }
      __syncthreads();
    }
    prev_v = sv[0];
    prev_i = si[0];
    if (tid == 0) {
      vals[(long long)blockIdx.x * k + j] = prev_v;
      idxs[(long long)blockIdx.x * k + j] = prev_i;
    }
    __syncthreads();  // everyone has read sv[0] / si[0] before the next round writes them
  }
}

std::vector<torch::Tensor> row_topk(torch::Tensor x, int64_t k) {
  TORCH_CHECK(x.is_cuda() && x.dim() == 2 && x.scalar_type() == at::kFloat, "2-D fp32 CUDA tensor expected");
  TORCH_CHECK(x.stride(1) == 1, "rows must be contiguous");
  const int64_t batch = x.size(0), n = x.size(1);
  TORCH_CHECK(k >= 0 && k <= n, "k out of range");
  auto vals = torch::empty({batch, k}, x.options());
  auto idxs = torch::empty({batch, k}, x.options().dtype(torch::kLong));
  if (batch == 0 || k == 0) return {vals, idxs};
  auto stream = at::cuda::getCurrentCUDAStream();
  row_topk_kernel<<<(unsigned)batch, THREADS, 0, stream>>>(
      x.data_ptr<float>(), vals.data_ptr<float>(), idxs.data_ptr<int64_t>(),
      (int)n, (int)k, (long long)x.stride(0));
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return {vals, idxs};
}
"""

_ext = None


def _extension():
    global _ext
    if _ext is None:
        _ext = load_inline(name="kaudit_corpus_topk_block_select", cpp_sources=_CPP, cuda_sources=_CUDA,
                           functions=["row_topk"], extra_cuda_cflags=["-O3"], verbose=False)
    return _ext


class ModelNew(torch.nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def forward(self, x):
        x32 = x.to(torch.float32)
        if x32.stride(-1) != 1:
            x32 = x32.contiguous()
        values, indices = _extension().row_topk(x32, self.k)
        return values, indices
