# Clean: MoE up-projection with a Triton grouped GEMM under @triton.autotune.
# Routing is torch glue on the caller's stream (argsort of the expert ids,
# bincount, cumsum, searchsorted) with a fixed row tile of 64, so the tile map
# does not depend on the tuned parameters; Triton times the column tile, K step,
# warps and stages on the first call for each (H, I, tile count) and keeps the
# fastest. Every configuration writes every output row of its tiles, gate and
# up are summed in fp32 and SwiGLU is applied before one bf16 cast.
import torch
import triton
import triton.language as tl

_BM = 64


@triton.autotune(
    configs=[
        triton.Config({"BN": 64, "BK": 64}, num_warps=4, num_stages=3),
        triton.Config({"BN": 128, "BK": 64}, num_warps=8, num_stages=3),
        triton.Config({"BN": 128, "BK": 32}, num_warps=4, num_stages=4),
    ],
    key=["H", "I", "n_tiles"],
)
@triton.jit
def _moe_tuned_tile_kernel(x_ptr, w_ptr, out_ptr, sorted_slots_ptr, tile_expert_ptr,
                           tile_row_start_ptr, tile_row_end_ptr, n_tiles,
                           H, I, E, TOPK, stride_xt, stride_we, stride_wn, stride_ot,
                           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    tile = tl.program_id(0)
    pid_n = tl.program_id(1)
    e = tl.load(tile_expert_ptr + tile)
    if e < E:
        row_start = tl.load(tile_row_start_ptr + tile)
        row_end = tl.load(tile_row_end_ptr + tile)
        rows = row_start + tl.arange(0, BM)
        r_ok = rows < row_end
        slots = tl.load(sorted_slots_ptr + rows, mask=r_ok, other=0).to(tl.int64)
        tok = slots // TOPK
        offs_n = pid_n * BN + tl.arange(0, BN)
        n_ok = offs_n < I
        offs_k = tl.arange(0, BK)
        w_base = w_ptr + e.to(tl.int64) * stride_we
        acc_g = tl.zeros((BM, BN), dtype=tl.float32)
        acc_u = tl.zeros((BM, BN), dtype=tl.float32)
        for k0 in range(0, H, BK):
            kk = k0 + offs_k
            k_ok = kk < H
            a = tl.load(x_ptr + tok[:, None] * stride_xt + kk[None, :], mask=r_ok[:, None] & k_ok[None, :],
                        other=0.0)
            w_mask = k_ok[:, None] & n_ok[None, :]
            wg = tl.load(w_base + offs_n[None, :].to(tl.int64) * stride_wn + kk[:, None], mask=w_mask, other=0.0)
            wu = tl.load(w_base + (offs_n[None, :] + I).to(tl.int64) * stride_wn + kk[:, None], mask=w_mask,
                         other=0.0)
            acc_g = tl.dot(a, wg, acc=acc_g, out_dtype=tl.float32)
            acc_u = tl.dot(a, wu, acc=acc_u, out_dtype=tl.float32)
        h = acc_g / (1.0 + tl.exp(-acc_g)) * acc_u
        tl.store(out_ptr + slots[:, None] * stride_ot + offs_n[None, :], h.to(out_ptr.dtype.element_ty),
                 mask=r_ok[:, None] & n_ok[None, :])


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, w13, expert_ids):
        T, H = x.shape
        E, two_i, _ = w13.shape
        I = two_i // 2
        topk = expert_ids.shape[1]
        out = torch.empty(T, topk, I, device=x.device, dtype=x.dtype)
        if out.numel() == 0:
            return out
        x = x.contiguous()
        w13 = w13.contiguous()
        # routing: slots ordered by expert, and the tile -> (expert, rows) map
        flat = expert_ids.reshape(-1)
        sorted_slots = torch.argsort(flat, stable=True).to(torch.int32)
        counts = torch.bincount(flat, minlength=E)[:E]
        starts = torch.cumsum(counts, 0) - counts
        tiles_per_expert = (counts + _BM - 1) // _BM
        tile_end = torch.cumsum(tiles_per_expert, 0)
        n_tiles = triton.cdiv(flat.numel(), _BM) + E  # upper bound, no read-back
        tile = torch.arange(n_tiles, device=x.device, dtype=tile_end.dtype)
        tile_e = torch.searchsorted(tile_end, tile, right=True)
        e_c = tile_e.clamp(max=E - 1)
        row_start = (starts[e_c] + (tile - (tile_end[e_c] - tiles_per_expert[e_c])) * _BM).to(torch.int32)
        row_end = (starts[e_c] + counts[e_c]).to(torch.int32)
        tile_expert = tile_e.to(torch.int32)
        out2d = out.view(T * topk, I)

        def grid(meta):
            return (n_tiles, triton.cdiv(I, meta["BN"]))

        _moe_tuned_tile_kernel[grid](
            x, w13, out2d, sorted_slots, tile_expert, row_start, row_end, n_tiles,
            H, I, E, topk, x.stride(0), w13.stride(0), w13.stride(1), out2d.stride(0), BM=_BM)
        return out
