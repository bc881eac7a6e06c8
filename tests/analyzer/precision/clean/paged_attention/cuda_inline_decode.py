"""Paged GQA decode attention in CUDA C++ (load_inline).

One block per (sequence, kv head); each warp owns a slice of the sequence,
keeps its own online-softmax state for the whole query group in registers and
the warps are merged through shared memory at the end. bf16 loads are 16 bytes
wide; head_dim is fixed at 128 by the problem, checked on the host.
"""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_CPP = "torch::Tensor paged_decode(torch::Tensor q, torch::Tensor kc, torch::Tensor vc, torch::Tensor bt, torch::Tensor lens);"

_CUDA = r"""
#include <torch/extension.h>
#include <cuda_bf16.h>
#include <cfloat>

template <int G>
__global__ void paged_decode_kernel(const __nv_bfloat16* q, const __nv_bfloat16* kc, const __nv_bfloat16* vc,
                                    const int* bt, const int* lens, __nv_bfloat16* out, int HQ, int HKV,
                                    int page, int max_pages, float scale) {
  constexpr int D = 128;
  const int b = blockIdx.x, hk = blockIdx.y;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, nwarps = blockDim.x / 32;
  const int n = lens[b];
  float qr[G][4];
  for (int g = 0; g < G; ++g)
    for (int j = 0; j < 4; ++j)
      qr[g][j] = __bfloat162float(q[((long)b * HQ + hk * G + g) * D + lane * 4 + j]) * scale;
  float m[G], l[G], acc[G][4];
  for (int g = 0; g < G; ++g) { m[g] = -FLT_MAX; l[g] = 0.f; for (int j = 0; j < 4; ++j) acc[g][j] = 0.f; }
  for (int t = warp; t < n; t += nwarps) {
    const long pg = bt[(long)b * max_pages + t / page];
    const long base = ((pg * page + t % page) * HKV + hk) * D + lane * 4;
    float kv[4], vv[4];
    for (int j = 0; j < 4; ++j) { kv[j] = __bfloat162float(kc[base + j]); vv[j] = __bfloat162float(vc[base + j]); }
    for (int g = 0; g < G; ++g) {
      float s = 0.f;
      for (int j = 0; j < 4; ++j) s += qr[g][j] * kv[j];
      for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffff, s, o);
      float mn = fmaxf(m[g], s), a = __expf(m[g] - mn), p = __expf(s - mn);
      l[g] = l[g] * a + p;
      for (int j = 0; j < 4; ++j) acc[g][j] = acc[g][j] * a + p * vv[j];
      m[g] = mn;
    }
  }
  extern __shared__ float sm[];
  float* sm_m = sm;
  float* sm_l = sm + nwarps * G;
  float* sm_acc = sm + 2 * nwarps * G;
  for (int g = 0; g < G; ++g) {
    if (lane == 0) { sm_m[warp * G + g] = m[g]; sm_l[warp * G + g] = l[g]; }
    for (int j = 0; j < 4; ++j) sm_acc[(warp * G + g) * D + lane * 4 + j] = acc[g][j];
  }
  __syncthreads();
  for (int idx = threadIdx.x; idx < G * D; idx += blockDim.x) {
    int g = idx / D, dd = idx % D;
    float mm = -FLT_MAX;
    for (int w = 0; w < nwarps; ++w) mm = fmaxf(mm, sm_m[w * G + g]);
    float num = 0.f, den = 0.f;
    for (int w = 0; w < nwarps; ++w) {
      float a = __expf(sm_m[w * G + g] - mm);
      num += a * sm_acc[(w * G + g) * D + dd];
      den += a * sm_l[w * G + g];
    }
    out[((long)b * HQ + hk * G + g) * D + dd] = __float2bfloat16(num / den);
  }
}

torch::Tensor paged_decode(torch::Tensor q, torch::Tensor kc, torch::Tensor vc, torch::Tensor bt, torch::Tensor lens) {
  TORCH_CHECK(q.size(2) == 128, "head_dim must be 128");
  const int B = q.size(0), HQ = q.size(1), HKV = kc.size(2), page = kc.size(1);
  auto out = torch::empty_like(q);
  const int G = HQ / HKV;
  const int warps = 8;
  size_t smem = (2 * warps * G + warps * G * 128) * sizeof(float);
  dim3 grid(B, HKV);
  auto args = std::make_tuple(reinterpret_cast<const __nv_bfloat16*>(q.data_ptr()));
  float scale = 1.0f / sqrtf(128.f);
  if (G == 4) paged_decode_kernel<4><<<grid, warps * 32, smem>>>(reinterpret_cast<const __nv_bfloat16*>(q.data_ptr()), reinterpret_cast<const __nv_bfloat16*>(kc.data_ptr()), reinterpret_cast<const __nv_bfloat16*>(vc.data_ptr()), bt.data_ptr<int>(), lens.data_ptr<int>(), reinterpret_cast<__nv_bfloat16*>(out.data_ptr()), HQ, HKV, page, bt.size(1), scale);
  else if (G == 8) paged_decode_kernel<8><<<grid, warps * 32, smem>>>(reinterpret_cast<const __nv_bfloat16*>(q.data_ptr()), reinterpret_cast<const __nv_bfloat16*>(kc.data_ptr()), reinterpret_cast<const __nv_bfloat16*>(vc.data_ptr()), bt.data_ptr<int>(), lens.data_ptr<int>(), reinterpret_cast<__nv_bfloat16*>(out.data_ptr()), HQ, HKV, page, bt.size(1), scale);
  else paged_decode_kernel<16><<<grid, warps * 32, smem>>>(reinterpret_cast<const __nv_bfloat16*>(q.data_ptr()), reinterpret_cast<const __nv_bfloat16*>(kc.data_ptr()), reinterpret_cast<const __nv_bfloat16*>(vc.data_ptr()), bt.data_ptr<int>(), lens.data_ptr<int>(), reinterpret_cast<__nv_bfloat16*>(out.data_ptr()), HQ, HKV, page, bt.size(1), scale);
  return out;
}
"""

_ext = None


def _load():
    global _ext
    if _ext is None:
        _ext = load_inline(name="paged_decode_ext", cpp_sources=_CPP, cuda_sources=_CUDA,
                           functions=["paged_decode"], extra_cuda_cflags=["-O3", "--use_fast_math"])
    return _ext


class Model(nn.Module):
    def forward(self, q, k_cache, v_cache, block_table, seq_lens):
        return _load().paged_decode(q.contiguous(), k_cache, v_cache, block_table.int().contiguous(),
                                    seq_lens.int().contiguous())


def get_inputs():
    q = torch.randn(128, 16, 128, device="cuda", dtype=torch.bfloat16)
    kc = torch.randn(128 * 94 + 7, 16, 2, 128, device="cuda", dtype=torch.bfloat16)
    bt = torch.randperm(128 * 94 + 7)[: 128 * 94].reshape(128, 94).to(torch.int32).cuda()
    return [q, kc, torch.randn_like(kc), bt, torch.randint(1, 1501, (128,), dtype=torch.int32).cuda()]


def get_init_inputs():
    return []
