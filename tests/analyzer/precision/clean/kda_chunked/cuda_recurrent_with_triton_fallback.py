"""KDA forward: a CUDA C++ chunk kernel, with the Triton version as fallback.

The CUDA kernel (load_inline) is the fast path on sm_90; if the extension
fails to build (no nvcc on the machine, an old toolkit) the Triton kernel is
used instead. Both compute the same chunked recurrence. KDA_VERIFY=1 compares
the two on every call and raises on a mismatch, for development only.
"""
import os

import torch
import torch.nn as nn
import triton
import triton.language as tl
from torch.utils.cpp_extension import load_inline

_VERIFY = os.environ.get("KDA_VERIFY") == "1"

_CUDA_SRC = r"""
#include <torch/extension.h>
#include <cuda_bf16.h>

// One block per (b, h); thread j owns column j of the K x V state (V = 128).
__global__ void kda_recurrent(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                              const float* g, const float* beta, __nv_bfloat16* o, int T, int H, float scale) {
  constexpr int K = 128, V = 128;
  const int b = blockIdx.x / H, h = blockIdx.x % H, j = threadIdx.x;
  float S[K];
  for (int c = 0; c < K; ++c) S[c] = 0.f;
  __shared__ float ks[K], qs[K], gs[K];
  for (int t = 0; t < T; ++t) {
    const long base = ((long)b * T + t) * H + h;
    if (j < K) { ks[j] = __bfloat162float(k[base * K + j]); qs[j] = __bfloat162float(q[base * K + j]) * scale;
                 gs[j] = __expf(g[base * K + j]); }
    __syncthreads();
    float pred = 0.f;
    for (int c = 0; c < K; ++c) { S[c] *= gs[c]; pred += S[c] * ks[c]; }
    const float u = beta[base] * (__bfloat162float(v[base * V + j]) - pred);
    float out = 0.f;
    for (int c = 0; c < K; ++c) { S[c] += ks[c] * u; out += S[c] * qs[c]; }
    o[base * V + j] = __float2bfloat16(out);
    __syncthreads();
  }
}

torch::Tensor kda_fwd(torch::Tensor q, torch::Tensor k, torch::Tensor v, torch::Tensor g, torch::Tensor beta) {
  const int B = q.size(0), T = q.size(1), H = q.size(2);
  auto o = torch::empty_like(v);
  kda_recurrent<<<B * H, 128>>>(reinterpret_cast<const __nv_bfloat16*>(q.data_ptr()),
                                reinterpret_cast<const __nv_bfloat16*>(k.data_ptr()),
                                reinterpret_cast<const __nv_bfloat16*>(v.data_ptr()), g.data_ptr<float>(),
                                beta.data_ptr<float>(), reinterpret_cast<__nv_bfloat16*>(o.data_ptr()), T, H,
                                1.0f / sqrtf((float)q.size(3)));
  return o;
}
"""

try:
    _ext = load_inline("kda_cuda_ext", cpp_sources="torch::Tensor kda_fwd(torch::Tensor q, torch::Tensor k, torch::Tensor v, torch::Tensor g, torch::Tensor beta);",
                       cuda_sources=_CUDA_SRC, functions=["kda_fwd"], extra_cuda_cflags=["-O3"])
except Exception as exc:  # no toolkit: the Triton kernel below does the same work
    print(f"kda: CUDA extension unavailable ({exc}); using Triton")
    _ext = None


@triton.jit
def _kda_triton(q_ptr, k_ptr, v_ptr, g_ptr, beta_ptr, o_ptr, T, H, scale, K: tl.constexpr, V: tl.constexpr):
    bh = tl.program_id(0)
    b = bh // H
    h = bh % H
    ck = tl.arange(0, K)
    cv = tl.arange(0, V)
    S = tl.zeros((K, V), tl.float32)
    for t in range(0, T):
        base = (b * T + t) * H + h
        k = tl.load(k_ptr + base * K + ck).to(tl.float32)
        q = tl.load(q_ptr + base * K + ck).to(tl.float32) * scale
        v = tl.load(v_ptr + base * V + cv).to(tl.float32)
        S = S * tl.exp(tl.load(g_ptr + base * K + ck))[:, None]
        u = tl.load(beta_ptr + base) * (v - tl.sum(S * k[:, None], axis=0))
        S = S + k[:, None] * u[None, :]
        tl.store(o_ptr + base * V + cv, tl.sum(S * q[:, None], axis=0).to(tl.bfloat16))


def _triton_forward(q, k, v, g, beta):
    b, t, h, dk = q.shape
    o = torch.empty_like(v)
    _kda_triton[(b * h,)](q, k, v, g, beta, o, t, h, dk ** -0.5, K=dk, V=v.shape[-1], num_warps=8)
    return o


class Model(nn.Module):
    def forward(self, q, k, v, g, beta):
        if _ext is None:
            return _triton_forward(q, k, v, g, beta)
        o = _ext.kda_fwd(q.contiguous(), k.contiguous(), v.contiguous(), g.contiguous(), beta.contiguous())
        if _VERIFY:
            other = _triton_forward(q, k, v, g, beta)
            if not torch.allclose(o.float(), other.float(), atol=2e-2, rtol=2e-2):
                raise RuntimeError("CUDA and Triton KDA disagree")
        return o


def get_inputs():
    q = torch.randn(2, 4096, 16, 128, device="cuda").to(torch.bfloat16)
    return [q, q.clone(), q.clone(), -torch.rand(2, 4096, 16, 128, device="cuda") * 0.3,
            torch.rand(2, 4096, 16, device="cuda")]


def get_init_inputs():
    return []
