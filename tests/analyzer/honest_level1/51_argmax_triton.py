import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_I": 128}, num_warps=4),
        triton.Config({"BLOCK_I": 256}, num_warps=4),
        triton.Config({"BLOCK_I": 512}, num_warps=8),
    ],
    key=["R", "inner"],
)
@triton.jit
def argmax_mid_kernel(x_ptr, out_ptr, R, inner, BLOCK_I: tl.constexpr):
    # x viewed as (outer, R, inner); out (outer, inner) int64.
    o = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK_I + tl.arange(0, BLOCK_I)
    cmask = cols < inner
    base = x_ptr + o * R * inner
    best = tl.full((BLOCK_I,), float("-inf"), dtype=tl.float32)
    best_idx = tl.zeros((BLOCK_I,), dtype=tl.int64)
    seen_nan = tl.zeros((BLOCK_I,), dtype=tl.int1)
    for r in range(0, R):
        v = tl.load(base + r * inner + cols, mask=cmask, other=float("-inf")).to(tl.float32)
        is_nan = v != v
        # First maximum wins (strict >); the first NaN wins over everything, like torch.argmax.
        take = ((v > best) | is_nan) & ~seen_nan
        best = tl.where(take, v, best)
        best_idx = tl.where(take, r, best_idx)
        seen_nan = seen_nan | is_nan
    tl.store(out_ptr + o * inner + cols, best_idx, mask=cmask)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dim = self.dim % x.dim()
        shape = list(x.shape)
        R = shape[dim]
        if R == 0:
            raise RuntimeError("argmax(): cannot reduce over a zero-size dimension")
        outer = 1
        for s in shape[:dim]:
            outer *= s
        inner = 1
        for s in shape[dim + 1:]:
            inner *= s
        xc = x.contiguous()
        out = torch.empty((outer, inner), device=x.device, dtype=torch.int64)
        grid = lambda meta: (outer, triton.cdiv(inner, meta["BLOCK_I"]))
        argmax_mid_kernel[grid](xc, out, R, inner)
        del shape[dim]
        return out.view(shape)
