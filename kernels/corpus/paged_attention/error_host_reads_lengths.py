# Error (segfault): a CUDA decode kernel through load_inline whose host wrapper
# sizes the launch by reading seq_lens through data_ptr<int>() on the host;
# the tensor lives on the GPU, so the host dereferences a device address.
import torch
from torch.utils.cpp_extension import load_inline

_cuda_src = r"""
#include <torch/extension.h>
#include <cuda_bf16.h>

__global__ void paged_decode(const __nv_bfloat16* q, const __nv_bfloat16* kc, const __nv_bfloat16* vc,
                             const int* bt, const int* lens, __nv_bfloat16* out, int num_heads,
                             int num_kv_heads, int max_pages, float scale) {
  // one block per (sequence, head), one thread per dimension (head_dim = 128)
  int b = blockIdx.x, h = blockIdx.y, d = threadIdx.x;
  int kvh = h / (num_heads / num_kv_heads);
  int len = lens[b];
  __shared__ float red[128];
  float qd = __bfloat162float(q[((size_t)b * num_heads + h) * 128 + d]);
  float m = -INFINITY, l = 0.f, acc = 0.f;
  for (int t = 0; t < len; ++t) {
    int page = bt[b * max_pages + t / 16];
    size_t base = (((size_t)page * 16 + t % 16) * num_kv_heads + kvh) * 128;
    red[d] = qd * __bfloat162float(kc[base + d]);
    __syncthreads();
    for (int s = 64; s > 0; s >>= 1) { if (d < s) red[d] += red[d + s]; __syncthreads(); }
    float sc = red[0] * scale;
    __syncthreads();
    float mn = fmaxf(m, sc);
    float a = __expf(m - mn), p = __expf(sc - mn);
    l = l * a + p;
    acc = acc * a + p * __bfloat162float(vc[base + d]);
    m = mn;
  }
  out[((size_t)b * num_heads + h) * 128 + d] = __float2bfloat16(acc / l);
}

torch::Tensor decode(torch::Tensor q, torch::Tensor kc, torch::Tensor vc, torch::Tensor bt, torch::Tensor lens) {
  int batch = q.size(0), num_heads = q.size(1), num_kv_heads = kc.size(2);
  // skip empty sequences: find how many leading sequences have tokens
  const int* host_lens = lens.data_ptr<int>();
  int active = 0;
  while (active < batch && host_lens[active] > 0) ++active;
  auto out = torch::zeros_like(q);
  dim3 grid(active, num_heads);
  paged_decode<<<grid, 128>>>(reinterpret_cast<const __nv_bfloat16*>(q.data_ptr()),
                              reinterpret_cast<const __nv_bfloat16*>(kc.data_ptr()),
                              reinterpret_cast<const __nv_bfloat16*>(vc.data_ptr()),
                              bt.data_ptr<int>(), lens.data_ptr<int>(),
                              reinterpret_cast<__nv_bfloat16*>(out.data_ptr()), num_heads, num_kv_heads,
                              (int)bt.size(1), 1.0f / sqrtf((float)q.size(2)));
  return out;
}
"""

_cpp_src = "torch::Tensor decode(torch::Tensor q, torch::Tensor kc, torch::Tensor vc, torch::Tensor bt, torch::Tensor lens);"

_ext = load_inline(name="paged_decode_naive_ext", cpp_sources=_cpp_src, cuda_sources=_cuda_src,
                   functions=["decode"], extra_cuda_cflags=["-O3"], verbose=False)


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q, k_cache, v_cache, block_table, seq_lens):
        return _ext.decode(q.contiguous(), k_cache, v_cache, block_table.contiguous(), seq_lens.contiguous())
