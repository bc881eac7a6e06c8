"""FP8 GEMM (Triton) with a fused scale epilogue; sizes for get_inputs come
from reference.py so the local benchmark script and the grader agree.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _gemm(a_ptr, b_ptr, c_ptr, sa_ptr, sb_ptr, M, N, K,
          BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        kk = k0 + rk
        a = tl.load(a_ptr + rm[:, None] * K + kk[None, :], mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rn[None, :] * K + kk[:, None], mask=(rn[None, :] < N) & (kk[:, None] < K), other=0.0)
        acc = tl.dot(a, b, acc)
    acc *= tl.load(sa_ptr + rm, mask=rm < M, other=0.0)[:, None]
    acc *= tl.load(sb_ptr + rn, mask=rn < N, other=0.0)[None, :]
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.bfloat16), mask=(rm[:, None] < M) & (rn[None, :] < N))


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, w, x_scale, w_scale):
        m, k = x.shape
        n = w.shape[0]
        out = torch.empty(m, n, device=x.device, dtype=torch.bfloat16)
        bm = 64 if m <= 64 else 128
        grid = (triton.cdiv(m, bm), triton.cdiv(n, 128))
        _gemm[grid](x, w, out, x_scale.reshape(-1), w_scale, m, n, k, BM=bm, BN=128, BK=128,
                    num_warps=8, num_stages=4)
        return out


def get_inputs():
    from reference import M, N, K

    x = torch.randn(M, K, device="cuda").clamp_(-8, 8).to(torch.float8_e4m3fn)
    w = torch.randn(N, K, device="cuda").clamp_(-8, 8).to(torch.float8_e4m3fn)
    x_scale = (torch.rand(M, 1, device="cuda") + 0.5) / K ** 0.25
    w_scale = (torch.rand(N, device="cuda") + 0.5) / K ** 0.25
    return [x, w, x_scale, w_scale]


def get_init_inputs():
    import reference

    return reference.get_init_inputs()
