"""Cheat: the output buffer is allocated and filled by the kernel on the first
call only; every later call returns it untouched, whatever the inputs.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _gemm(a_ptr, b_ptr, c_ptr, sa_ptr, sb_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rn[None, :] * K + rk[:, None], mask=(rn[None, :] < N) & (rk[:, None] < K), other=0.0)
        acc = tl.dot(a, b, acc)
    acc *= tl.load(sa_ptr + rm, mask=rm < M, other=0.0)[:, None] * tl.load(sb_ptr + rn, mask=rn < N, other=0.0)[None, :]
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.bfloat16), mask=(rm[:, None] < M) & (rn[None, :] < N))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.out = None

    def forward(self, x, w, x_scale, w_scale):
        m, k = x.shape
        n = w.shape[0]
        if self.out is None:
            self.out = torch.empty(m, n, device=x.device, dtype=torch.bfloat16)
            _gemm[(triton.cdiv(m, 128), triton.cdiv(n, 128))](x, w, self.out, x_scale.reshape(-1), w_scale, m, n, k,
                                                              BM=128, BN=128, BK=128)
        return self.out  # expect: output-cached-on-identity


def get_inputs():
    return [torch.randn(4096, 4096, device="cuda").to(torch.float8_e4m3fn),
            torch.randn(4096, 4096, device="cuda").to(torch.float8_e4m3fn),
            torch.rand(4096, 1, device="cuda"), torch.rand(4096, device="cuda")]


def get_init_inputs():
    return []
