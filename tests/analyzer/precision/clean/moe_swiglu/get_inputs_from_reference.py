"""MoE SwiGLU: a persistent Triton kernel walking a tile list.

The tile list ((expert, first row) pairs) is built on the GPU each call from
the routing. get_inputs imports the reference so the local runner follows
whichever shape reference.T / reference.E are set to.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _persistent_moe(x_ptr, w_ptr, out_ptr, slots_ptr, starts_ptr, tile_e_ptr, tile_r_ptr, n_tiles,
                    H, I, K_TOP, NUM_PROGS: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid = tl.program_id(0)
    n_col = tl.cdiv(I, BN)
    for work in range(pid, n_tiles * n_col, NUM_PROGS):
        tile = work // n_col
        pn = work % n_col
        e = tl.load(tile_e_ptr + tile)
        r0 = tl.load(tile_r_ptr + tile)
        hi = tl.load(starts_ptr + e + 1)
        rows = r0 + tl.arange(0, BM)
        rmask = rows < hi
        slot = tl.load(slots_ptr + rows, mask=rmask, other=0)
        rn = pn * BN + tl.arange(0, BN)
        g = tl.zeros((BM, BN), dtype=tl.float32)
        u = tl.zeros((BM, BN), dtype=tl.float32)
        for k0 in range(0, H, BK):
            rk = k0 + tl.arange(0, BK)
            a = tl.load(x_ptr + (slot // K_TOP)[:, None] * H + rk[None, :], mask=rmask[:, None], other=0.0)
            wg = tl.load(w_ptr + e * 2 * I * H + rn[None, :] * H + rk[:, None], mask=rn[None, :] < I, other=0.0)
            wu = tl.load(w_ptr + e * 2 * I * H + (rn[None, :] + I) * H + rk[:, None], mask=rn[None, :] < I,
                         other=0.0)
            g = tl.dot(a, wg, g)
            u = tl.dot(a, wu, u)
        tl.store(out_ptr + slot[:, None] * I + rn[None, :], (g * tl.sigmoid(g) * u).to(tl.bfloat16),
                 mask=rmask[:, None] & (rn[None, :] < I))


def _tiles(counts, starts, bm):
    blocks = (counts + bm - 1) // bm
    tile_e = torch.repeat_interleave(torch.arange(counts.numel(), device=counts.device), blocks)
    first = torch.cumsum(blocks, 0) - blocks
    tile_r = starts[tile_e] + (torch.arange(tile_e.numel(), device=counts.device) - first[tile_e]) * bm
    return tile_e, tile_r


class Model(nn.Module):
    def forward(self, x, w13, expert_ids):
        t, k = expert_ids.shape
        e, two_i, h = w13.shape
        inter = two_i // 2
        flat = expert_ids.reshape(-1)
        counts = torch.bincount(flat, minlength=e)
        starts = torch.zeros(e + 1, device=x.device, dtype=torch.int64)
        starts[1:] = torch.cumsum(counts, 0)
        slots = torch.argsort(flat, stable=True)
        tile_e, tile_r = _tiles(counts, starts, 64)
        out = torch.empty(t * k, inter, device=x.device, dtype=x.dtype)
        progs = torch.cuda.get_device_properties(x.device).multi_processor_count
        _persistent_moe[(progs,)](x, w13, out, slots, starts, tile_e, tile_r, tile_e.numel(), h, inter, k,
                                  NUM_PROGS=progs, BM=64, BN=128, BK=64, num_warps=8)
        return out.view(t, k, inter)


def get_inputs():
    import reference

    torch.manual_seed(0)
    return reference.get_inputs()


def get_init_inputs():
    return []
