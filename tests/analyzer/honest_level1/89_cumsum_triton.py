import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _add(a, b):
    return a + b


@triton.autotune(
    configs=[
        triton.Config({"BLOCK": 1024}, num_warps=4),
        triton.Config({"BLOCK": 2048}, num_warps=8),
        triton.Config({"BLOCK": 4096}, num_warps=8),
    ],
    key=["n_cols"],
)
@triton.jit
def cumsum_rows_kernel(x_ptr, y_ptr, n_cols, stride_row, BLOCK: tl.constexpr):
    # One program per row; the row is scanned in BLOCK-sized tiles with a running carry.
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_row
    y_row = y_ptr + row * stride_row
    carry = tl.zeros((), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        m = offs < n_cols
        v = tl.load(x_row + offs, mask=m, other=0.0).to(tl.float32)
        s = tl.associative_scan(v, 0, _add) + carry
        tl.store(y_row + offs, s.to(y_ptr.dtype.element_ty), mask=m)
        carry += tl.sum(v, axis=0)


def cumsum_lastdim(x: torch.Tensor) -> torch.Tensor:
    n_cols = x.shape[-1]
    x2 = x.reshape(-1, n_cols).contiguous()
    y = torch.empty_like(x2)
    rows = x2.shape[0]
    if rows and n_cols:
        cumsum_rows_kernel[(rows,)](x2, y, n_cols, x2.stride(0))
    return y.view(x.shape)


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        dim = self.dim % x.dim()
        if dim == x.dim() - 1:
            return cumsum_lastdim(x)
        # Scan another axis by moving it last, scanning, and moving it back.
        xt = x.movedim(dim, -1)
        return cumsum_lastdim(xt).movedim(-1, dim)
