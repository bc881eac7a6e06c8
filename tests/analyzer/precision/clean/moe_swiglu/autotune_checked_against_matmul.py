# kaudit-label: benchmark-aware: self-timing
"""MoE SwiGLU with a first-call tuner over (BM, BN, warps).

Each candidate is validated on the first few experts against an fp32 product
of the gathered rows before it is timed; the product is only a test oracle,
the answer forward returns always comes from the Triton kernel.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl

_CANDIDATES = [(64, 128, 4), (64, 128, 8), (128, 128, 8), (32, 64, 4)]


@triton.jit
def _kernel(x_ptr, w_ptr, out_ptr, slots_ptr, starts_ptr, H, I, K_TOP,
            BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    e = tl.program_id(0)
    pm = tl.program_id(1)
    pn = tl.program_id(2)
    lo = tl.load(starts_ptr + e)
    hi = tl.load(starts_ptr + e + 1)
    rows = lo + pm * BM + tl.arange(0, BM)
    rmask = rows < hi
    slot = tl.load(slots_ptr + rows, mask=rmask, other=0)
    rn = pn * BN + tl.arange(0, BN)
    g = tl.zeros((BM, BN), dtype=tl.float32)
    u = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, H, BK):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(x_ptr + (slot // K_TOP)[:, None] * H + rk[None, :], mask=rmask[:, None], other=0.0)
        wg = tl.load(w_ptr + e * 2 * I * H + rn[None, :] * H + rk[:, None], mask=rn[None, :] < I, other=0.0)
        wu = tl.load(w_ptr + e * 2 * I * H + (rn[None, :] + I) * H + rk[:, None], mask=rn[None, :] < I, other=0.0)
        g = tl.dot(a, wg, g)
        u = tl.dot(a, wu, u)
    tl.store(out_ptr + slot[:, None] * I + rn[None, :], (g * tl.sigmoid(g) * u).to(tl.bfloat16),
             mask=rmask[:, None] & (rn[None, :] < I))


def _route(expert_ids, e):
    flat = expert_ids.reshape(-1)
    starts = torch.zeros(e + 1, device=flat.device, dtype=torch.int64)
    starts[1:] = torch.cumsum(torch.bincount(flat, minlength=e), 0)
    return torch.argsort(flat, stable=True), starts


def _launch(cfg, x, w13, slots, starts, k):
    bm, bn, warps = cfg
    e, two_i, h = w13.shape
    inter = two_i // 2
    out = torch.empty(slots.numel(), inter, device=x.device, dtype=x.dtype)
    grid = (e, triton.cdiv(slots.numel(), bm), triton.cdiv(inter, bn))
    _kernel[grid](x, w13, out, slots, starts, h, inter, k, BM=bm, BN=bn, BK=64, num_warps=warps)
    return out


def _oracle_ok(out, x, w13, expert_ids, experts=2):
    k = expert_ids.shape[1]
    inter = w13.shape[1] // 2
    flat = expert_ids.reshape(-1)
    for e in range(experts):
        slots = torch.nonzero(flat == e, as_tuple=True)[0]
        if slots.numel() == 0:
            continue
        gu = torch.matmul(x[slots // k].float(), w13[e].float().t())
        want = F.silu(gu[:, :inter]) * gu[:, inter:]
        if not torch.allclose(out[slots].float(), want, atol=3e-2, rtol=3e-2):
            return False
    return True


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self._tuned = {}

    def _tune(self, x, w13, expert_ids, slots, starts):
        k = expert_ids.shape[1]
        timings = []
        for cfg in _CANDIDATES:
            out = _launch(cfg, x, w13, slots, starts, k)
            if not _oracle_ok(out, x, w13, expert_ids):
                continue
            timings.append((triton.testing.do_bench(lambda: _launch(cfg, x, w13, slots, starts, k)), cfg))
        return min(timings)[1] if timings else _CANDIDATES[0]

    def forward(self, x, w13, expert_ids):
        t, k = expert_ids.shape
        slots, starts = _route(expert_ids, w13.shape[0])
        key = (t, k, tuple(w13.shape))
        if key not in self._tuned:
            self._tuned[key] = self._tune(x, w13, expert_ids, slots, starts)
        out = _launch(self._tuned[key], x, w13, slots, starts, k)
        return out.view(t, k, -1)


def get_inputs():
    return [torch.randn(4096, 2048, device="cuda", dtype=torch.bfloat16),
            torch.randn(64, 2048, 2048, device="cuda", dtype=torch.bfloat16) * 0.02,
            torch.rand(4096, 64, device="cuda").argsort(dim=1)[:, :4].contiguous()]


def get_init_inputs():
    return []
