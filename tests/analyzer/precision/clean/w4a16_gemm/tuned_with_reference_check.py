# kaudit-label: benchmark-aware: self-timing
"""W4A16 GEMM with a per-shape tuner that checks each candidate.

A candidate (BM, BN, split) is accepted only if its output matches the
dequantised fp32 product on the actual input within bf16 tolerance; the
fastest accepted one is cached per (M, N, K). Tuning runs inside the first
call of a shape only.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl

_SPACE = [(16, 64, 1), (16, 128, 4), (32, 128, 4), (64, 128, 1), (64, 256, 1), (128, 128, 1)]


@triton.jit
def _kernel(x_ptr, q_ptr, s_ptr, z_ptr, y_ptr, M, N, K, SPLIT: tl.constexpr, BM: tl.constexpr,
            BN: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    ps = tl.program_id(2)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    groups = K // 128
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for g in range(ps, groups, SPLIT):
        rk = g * 128 + tl.arange(0, 128)
        xv = tl.load(x_ptr + rm[:, None] * K + rk[None, :], mask=rm[:, None] < M, other=0.0)
        byte = tl.load(q_ptr + rn[None, :] * (K // 2) + rk[:, None] // 2, mask=rn[None, :] < N, other=0)
        nib = tl.where(rk[:, None] % 2 == 0, byte & 0xF, byte >> 4).to(tl.float32)
        sc = tl.load(s_ptr + rn * groups + g, mask=rn < N, other=0.0).to(tl.float32)
        zp = tl.load(z_ptr + rn * groups + g, mask=rn < N, other=0.0).to(tl.float32)
        acc = tl.dot(xv, ((nib - zp[None, :]) * sc[None, :]).to(tl.bfloat16), acc)
    tl.atomic_add(y_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def _launch(cfg, x, q, s, z):
    bm, bn, split = cfg
    m, k = x.shape
    n = q.shape[0]
    y = torch.zeros(m, n, device=x.device, dtype=torch.float32)
    _kernel[(triton.cdiv(m, bm), triton.cdiv(n, bn), split)](x, q, s, z, y, m, n, k, SPLIT=split, BM=bm, BN=bn,
                                                            num_warps=4 if bm * bn <= 8192 else 8)
    return y.to(torch.bfloat16)


def _dequantised(q, s, z):
    low = (q & 0x0F).float()
    high = (q >> 4).float()
    w = torch.stack([low, high], dim=-1).reshape(q.shape[0], -1)
    g = w.reshape(w.shape[0], -1, 128)
    return ((g - z.float().unsqueeze(-1)) * s.float().unsqueeze(-1)).reshape(w.shape[0], -1)


def _check(y, x, q, s, z):
    want = x.float() @ _dequantised(q, s, z).t()
    return (y.float() - want).abs().max().item() <= 2e-2 * want.abs().max().item() + 1e-2


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self._choice = {}

    def _tune(self, x, q, s, z):
        best, best_ms = None, float("inf")
        for cfg in _SPACE:
            y = _launch(cfg, x, q, s, z)
            if not _check(y, x, q, s, z):
                continue
            ms = triton.testing.do_bench(lambda: _launch(cfg, x, q, s, z), warmup=3, rep=10)
            if ms < best_ms:
                best, best_ms = cfg, ms
        return best or _SPACE[0]

    def forward(self, x, qweight, scales, zeros):
        key = (x.shape[0], qweight.shape[0], x.shape[1])
        cfg = self._choice.get(key)
        if cfg is None:
            cfg = self._tune(x, qweight, scales, zeros)
            self._choice[key] = cfg
        return _launch(cfg, x, qweight, scales, zeros)


def get_inputs():
    return [torch.randn(256, 4096, device="cuda", dtype=torch.bfloat16),
            torch.randint(0, 256, (12288, 2048), device="cuda", dtype=torch.uint8),
            torch.rand(12288, 32, device="cuda").to(torch.bfloat16),
            torch.randint(6, 10, (12288, 32), device="cuda").to(torch.bfloat16)]


def get_init_inputs():
    return []
