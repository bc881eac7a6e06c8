# Error (hangs): threshold selection by bisection. Each program bisects the
# value t with count(x >= t) == k, looping while hi - lo > 0. Once lo and hi
# are adjacent floats, mid rounds back to lo and the loop never ends.
import torch
import triton
import triton.language as tl


@triton.jit
def _threshold_kernel(x_ptr, thr_ptr, n, K: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    vals = tl.load(x_ptr + row.to(tl.int64) * n + offs, mask=offs < n, other=float("-inf"))
    lo = tl.min(tl.where(offs < n, vals, float("inf")), axis=0)
    hi = tl.max(vals, axis=0)
    while hi - lo > 0.0:
        mid = (lo + hi) * 0.5
        cnt = tl.sum((vals >= mid).to(tl.int32), axis=0)
        if cnt >= K:
            lo = mid
        else:
            hi = mid
    tl.store(thr_ptr + row, lo)


@triton.jit
def _gather_kernel(x_ptr, thr_ptr, val_ptr, idx_ptr, n, K: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    vals = tl.load(x_ptr + row.to(tl.int64) * n + offs, mask=offs < n, other=float("-inf"))
    thr = tl.load(thr_ptr + row)
    vals = tl.where(vals >= thr, vals, float("-inf"))
    for j in range(K):
        best = tl.max(vals, axis=0)
        where = tl.min(tl.where(vals == best, offs, 2147483647), axis=0)
        tl.store(val_ptr + row * K + j, best)
        tl.store(idx_ptr + row * K + j, where.to(tl.int64))
        vals = tl.where(offs == where, float("-inf"), vals)


class ModelNew(torch.nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def forward(self, x):
        x = x.contiguous()
        batch, n = x.shape
        block = triton.next_power_of_2(n)
        thr = torch.empty(batch, device=x.device, dtype=torch.float32)
        _threshold_kernel[(batch,)](x, thr, n, K=self.k, BLOCK=block, num_warps=16)
        values = torch.empty(batch, self.k, device=x.device, dtype=torch.float32)
        indices = torch.empty(batch, self.k, device=x.device, dtype=torch.int64)
        _gather_kernel[(batch,)](x, thr, values, indices, n, K=self.k, BLOCK=block, num_warps=16)
        return values, indices
