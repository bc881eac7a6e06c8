import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def hinge_row_sums_kernel(p_ptr, t_ptr, out_ptr, n_cols, stride_row, BLOCK: tl.constexpr):
    # predictions (R, C) * targets broadcast along the last dim (C,), like the reference.
    row = tl.program_id(0).to(tl.int64)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        m = cols < n_cols
        p = tl.load(p_ptr + row * stride_row + cols, mask=m, other=0.0).to(tl.float32)
        t = tl.load(t_ptr + cols, mask=m, other=0.0).to(tl.float32)
        v = tl.maximum(1.0 - p * t, 0.0)
        acc += tl.where(m, v, 0.0)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


def _finalize(row_sums: torch.Tensor, count: int) -> torch.Tensor:
    # Tiny epilogue over one value per row.
    return row_sums.sum() / count


# Compiled once at import; dynamic=False is fine, the number of rows is fixed per shape
# and a new size just triggers a recompile.
_finalize_compiled = torch.compile(_finalize, dynamic=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, predictions, targets):
        p, t = predictions, targets
        if p.dim() != 2 or t.dim() != 1 or t.shape[0] != p.shape[1]:
            # General broadcasting: materialise both to the broadcast shape, then treat the
            # result as rows of the last dim with a per-row target slice.
            p, t = torch.broadcast_tensors(p, t)
            p = p.reshape(-1, p.shape[-1]).contiguous()
            t = t.reshape(-1, t.shape[-1]).contiguous()
            rows, cols = p.shape
            sums = torch.empty(rows, device=p.device, dtype=torch.float32)
            for r in range(rows):
                hinge_row_sums_kernel[(1,)](p[r:r + 1], t[r], sums[r:r + 1], cols, cols, BLOCK=1024)
            return _finalize_compiled(sums, p.numel()).to(predictions.dtype)
        p = p.contiguous()
        t = t.contiguous()
        rows, cols = p.shape
        sums = torch.empty(rows, device=p.device, dtype=torch.float32)
        hinge_row_sums_kernel[(rows,)](p, t, sums, cols, p.stride(0), BLOCK=2048, num_warps=8)
        return _finalize_compiled(sums, p.numel()).to(torch.promote_types(predictions.dtype, targets.dtype))
