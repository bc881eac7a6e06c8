"""MoE SwiGLU grouped GEMM with block sizes read from MOE_BLOCK_M / MOE_BLOCK_N.

The knobs exist for the tuning sweep; the defaults are the best found for the
three graded shapes together. MOE_NUM_STAGES sets the software pipelining depth.
"""
import os

import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK_M = int(os.environ.get("MOE_BLOCK_M", "64"))
BLOCK_N = int(os.environ.get("MOE_BLOCK_N", "128"))
STAGES = int(os.environ["MOE_NUM_STAGES"]) if "MOE_NUM_STAGES" in os.environ else 3


@triton.jit
def _moe_up(x_ptr, w_ptr, out_ptr, slots_ptr, starts_ptr, H, I, K_TOP,
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


class Model(nn.Module):
    def forward(self, x, w13, expert_ids):
        t, k = expert_ids.shape
        e, two_i, h = w13.shape
        inter = two_i // 2
        flat = expert_ids.reshape(-1)
        starts = torch.zeros(e + 1, device=x.device, dtype=torch.int64)
        starts[1:] = torch.cumsum(torch.bincount(flat, minlength=e), 0)
        slots = torch.argsort(flat, stable=True)
        out = torch.empty(t * k, inter, device=x.device, dtype=x.dtype)
        grid = (e, triton.cdiv(t * k, BLOCK_M), triton.cdiv(inter, BLOCK_N))
        _moe_up[grid](x, w13, out, slots, starts, h, inter, k, BM=BLOCK_M, BN=BLOCK_N, BK=64, num_warps=8,
                      num_stages=STAGES)
        return out.view(t, k, inter)


def get_inputs():
    return [torch.randn(4096, 2048, device="cuda", dtype=torch.bfloat16),
            torch.randn(64, 2048, 2048, device="cuda", dtype=torch.bfloat16) * 0.02,
            torch.rand(4096, 64, device="cuda").argsort(dim=1)[:, :4].contiguous()]


def get_init_inputs():
    return []
