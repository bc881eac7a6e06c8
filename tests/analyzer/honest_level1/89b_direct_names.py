import torch
import torch.nn as nn
import triton
import triton.language as tl
from triton import jit


@triton.heuristics({"EVEN_COLS": lambda args: args["n_cols"] % args["BLOCK"] == 0})
@jit
def cumsum_tile_kernel(x_ptr, y_ptr, tile_sums_ptr, n_cols, n_tiles, BLOCK: tl.constexpr, EVEN_COLS: tl.constexpr):
    # Pass 1: inclusive scan inside each (row, tile); the tile's total goes to tile_sums.
    row = tl.program_id(0).to(tl.int64)
    tile = tl.program_id(1)
    cols = tile * BLOCK + tl.arange(0, BLOCK)
    if EVEN_COLS:
        v = tl.load(x_ptr + row * n_cols + cols).to(tl.float32)
    else:
        v = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    s = tl.cumsum(v, axis=0)
    if EVEN_COLS:
        tl.store(y_ptr + row * n_cols + cols, s)
    else:
        tl.store(y_ptr + row * n_cols + cols, s, mask=cols < n_cols)
    tl.store(tile_sums_ptr + row * n_tiles + tile, tl.sum(v, axis=0))


@jit
def add_carry_kernel(y_ptr, tile_sums_ptr, n_cols, n_tiles, BLOCK: tl.constexpr, TILES_P2: tl.constexpr):
    # Pass 2: add the sum of all earlier tiles of the row.
    row = tl.program_id(0).to(tl.int64)
    tile = tl.program_id(1)
    t = tl.arange(0, TILES_P2)
    sums = tl.load(tile_sums_ptr + row * n_tiles + t, mask=t < tile, other=0.0)
    carry = tl.sum(sums, axis=0)
    cols = tile * BLOCK + tl.arange(0, BLOCK)
    m = cols < n_cols
    y = tl.load(y_ptr + row * n_cols + cols, mask=m, other=0.0)
    tl.store(y_ptr + row * n_cols + cols, y + carry, mask=m)


_PASSES = (cumsum_tile_kernel, add_carry_kernel)


class ModelNew(nn.Module):
    BLOCK = 1024

    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        dim = self.dim % x.dim()
        xt = x.movedim(dim, -1)
        shape = xt.shape
        x2 = xt.reshape(-1, shape[-1]).contiguous().float()
        rows, cols = x2.shape
        y = torch.empty_like(x2)
        if x2.numel():
            n_tiles = triton.cdiv(cols, self.BLOCK)
            sums = torch.empty((rows, n_tiles), device=x2.device, dtype=torch.float32)
            grid = (rows, n_tiles)
            cumsum_tile_kernel[grid](x2, y, sums, cols, n_tiles, BLOCK=self.BLOCK, num_warps=4)
            if n_tiles > 1:
                add_carry_kernel[grid](y, sums, cols, n_tiles, BLOCK=self.BLOCK,
                                 TILES_P2=triton.next_power_of_2(n_tiles), num_warps=4)
        return y.to(x.dtype).view(shape).movedim(-1, dim)
