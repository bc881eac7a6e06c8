# kaudit-label: benchmark-aware: self-timing
"""FP8 GEMM with a hand-rolled autotuner that refuses wrong configurations.

triton.autotune would happily pick a configuration that is fast because it is
wrong (a BK larger than an unpadded K tail reads out of bounds on K=4127), so
the tuner here checks every candidate against an fp32 product of the upcast
operands on a 256-row slice before timing it. Tuning happens on the first call
of each (M, N, K); later calls look the winner up.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl

_CANDIDATES = [
    dict(BM=128, BN=128, BK=128, warps=8, stages=3),
    dict(BM=128, BN=256, BK=64, warps=8, stages=3),
    dict(BM=64, BN=128, BK=128, warps=4, stages=4),
    dict(BM=64, BN=64, BK=64, warps=4, stages=5),
]


@triton.jit
def _scaled_gemm(a_ptr, b_ptr, c_ptr, sa_ptr, sb_ptr, M, N, K,
                 BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
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
    acc *= tl.load(sa_ptr + rm, mask=rm < M, other=0.0)[:, None]
    acc *= tl.load(sb_ptr + rn, mask=rn < N, other=0.0)[None, :]
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.bfloat16), mask=(rm[:, None] < M) & (rn[None, :] < N))


def _run(cfg, x, w, xs, ws):
    m, k = x.shape
    n = w.shape[0]
    out = torch.empty(m, n, device=x.device, dtype=torch.bfloat16)
    grid = (triton.cdiv(m, cfg["BM"]), triton.cdiv(n, cfg["BN"]))
    _scaled_gemm[grid](x, w, out, xs.reshape(-1), ws, m, n, k, BM=cfg["BM"], BN=cfg["BN"], BK=cfg["BK"],
                       num_warps=cfg["warps"], num_stages=cfg["stages"])
    return out


def _agrees(cfg, x, w, xs, ws):
    rows = min(256, x.shape[0])
    got = _run(cfg, x[:rows], w, xs[:rows], ws).float()
    want = torch.matmul(x[:rows].float(), w.float().t()) * xs[:rows] * ws[None, :]
    return torch.allclose(got, want, atol=2e-2, rtol=2e-2)


def _tune(x, w, xs, ws):
    best, best_t = None, float("inf")
    for cfg in _CANDIDATES:
        if not _agrees(cfg, x, w, xs, ws):
            continue
        t = triton.testing.do_bench(lambda: _run(cfg, x, w, xs, ws), warmup=5, rep=20)
        if t < best_t:
            best, best_t = cfg, t
    assert best is not None, "no configuration passed the self-check"
    return best


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self._best = {}

    def forward(self, x, w, x_scale, w_scale):
        key = (x.shape[0], w.shape[0], x.shape[1])
        if key not in self._best:
            self._best[key] = _tune(x, w, x_scale, w_scale)
        return _run(self._best[key], x, w, x_scale, w_scale)


def get_inputs():
    x = torch.randn(4096, 4127, device="cuda").clamp_(-8, 8).to(torch.float8_e4m3fn)
    w = torch.randn(4096, 4127, device="cuda").clamp_(-8, 8).to(torch.float8_e4m3fn)
    return [x, w, torch.rand(4096, 1, device="cuda") + 0.5, torch.rand(4096, device="cuda") + 0.5]


def get_init_inputs():
    return []
