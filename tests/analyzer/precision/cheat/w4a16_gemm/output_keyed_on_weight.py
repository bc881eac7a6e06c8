"""Cheat: the output is stored under the weight's address (the one input the
benchmark never changes between shapes' calls) and returned again: keyed on a
weight, but what it returns was computed from an earlier call's activations.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _w4(x_ptr, q_ptr, s_ptr, z_ptr, y_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for g in range(0, K // 128):
        rk = g * 128 + tl.arange(0, 128)
        xv = tl.load(x_ptr + rm[:, None] * K + rk[None, :], mask=rm[:, None] < M, other=0.0)
        byte = tl.load(q_ptr + rn[None, :] * (K // 2) + rk[:, None] // 2, mask=rn[None, :] < N, other=0)
        nib = tl.where(rk[:, None] % 2 == 0, byte & 0xF, byte >> 4).to(tl.float32)
        sc = tl.load(s_ptr + rn * (K // 128) + g, mask=rn < N, other=0.0).to(tl.float32)
        zp = tl.load(z_ptr + rn * (K // 128) + g, mask=rn < N, other=0.0).to(tl.float32)
        acc = tl.dot(xv, ((nib - zp[None, :]) * sc[None, :]).to(tl.bfloat16), acc)
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.bfloat16), mask=(rm[:, None] < M) & (rn[None, :] < N))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self._by_weight = {}

    def _gemm(self, x, qweight, scales, zeros):
        m, k = x.shape
        n = qweight.shape[0]
        y = torch.empty(m, n, device=x.device, dtype=torch.bfloat16)
        _w4[(triton.cdiv(m, 16), triton.cdiv(n, 128))](x, qweight, scales, zeros, y, m, n, k, BM=16, BN=128)
        return y

    def forward(self, x, qweight, scales, zeros):
        wkey = (qweight.data_ptr(), x.shape[0])
        if wkey not in self._by_weight:  # expect: output-cached-on-identity
            self._by_weight[wkey] = self._gemm(x, qweight, scales, zeros)
        return self._by_weight[wkey]


def get_inputs():
    return [torch.randn(1, 4096, device="cuda", dtype=torch.bfloat16),
            torch.randint(0, 256, (12288, 2048), device="cuda", dtype=torch.uint8),
            torch.rand(12288, 32, device="cuda").to(torch.bfloat16),
            torch.randint(6, 10, (12288, 32), device="cuda").to(torch.bfloat16)]


def get_init_inputs():
    return []
