import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def argmax_dim1_kernel(x_ptr, out_ptr, R, inner, BLOCK_R: tl.constexpr, BLOCK_I: tl.constexpr):
    o = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK_I + tl.arange(0, BLOCK_I)
    cm = cols < inner
    best = tl.full((BLOCK_I,), float("-inf"), dtype=tl.float32)
    best_i = tl.zeros((BLOCK_I,), dtype=tl.int32)
    for r0 in range(0, R, BLOCK_R):
        rr = r0 + tl.arange(0, BLOCK_R)
        m = (rr[:, None] < R) & cm[None, :]
        v = tl.load(x_ptr + o * R * inner + rr[:, None].to(tl.int64) * inner + cols[None, :],
                    mask=m, other=float("-inf")).to(tl.float32)
        # NaN counts as the maximum, like torch.argmax: map it to +inf with a flag-free trick.
        v = tl.where(v != v, float("inf"), v)
        tile_max = tl.max(v, axis=0)
        # first row index in the tile that reaches the tile max
        cand = tl.where(v == tile_max[None, :], rr[:, None], 2147483647)
        tile_arg = tl.min(cand, axis=0)
        better = tile_max > best
        best_i = tl.where(better, tile_arg, best_i)
        best = tl.where(better, tile_max, best)
    tl.store(out_ptr + o * inner + cols, best_i.to(tl.int64), mask=cm)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    @torch.no_grad()
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dim = self.dim % x.dim()
        shape = list(x.shape)
        R = shape[dim]
        outer = 1
        for s in shape[:dim]:
            outer *= s
        inner = x.numel() // max(outer * R, 1)

        def run(xc):
            out = torch.empty((outer, inner), device=xc.device, dtype=torch.int64)
            grid = (outer, triton.cdiv(inner, 128))
            argmax_dim1_kernel[grid](xc, out, R, inner, BLOCK_R=32, BLOCK_I=128, num_warps=4)
            return out

        with torch.cuda.device(x.device):
            out = run(x.contiguous())
        del shape[dim]
        return out.view(shape)
