# Benchmark-aware (self-timing inside timed calls): every 8th call, graded
# or timed, it times two slice widths again with CUDA events and synchronize
# and keeps the faster. Real work on every call, but it measures its own speed
# while the benchmark measures it (timer-read-in-call in timed calls).
import torch
import triton
import triton.language as tl

_CHUNK = 4096


@triton.jit
def _slice_topk_kernel(x_ptr, cand_val_ptr, cand_idx_ptr, n, stride_row, n_slices,
                       K: tl.constexpr, CHUNK: tl.constexpr):
    row = tl.program_id(0)
    sl = tl.program_id(1)
    offs = sl * CHUNK + tl.arange(0, CHUNK)
    vals = tl.load(x_ptr + row.to(tl.int64) * stride_row + offs, mask=offs < n, other=float("-inf"))
    out = (row * n_slices + sl) * K
    for j in range(K):
        best = tl.max(vals, axis=0)
        where = tl.min(tl.where(vals == best, offs, 2147483647), axis=0)
        tl.store(cand_val_ptr + out + j, best)
        tl.store(cand_idx_ptr + out + j, where)
        vals = tl.where(offs == where, float("-inf"), vals)


@triton.jit
def _merge_topk_kernel(cand_val_ptr, cand_idx_ptr, val_ptr, idx_ptr, n_cand,
                       K: tl.constexpr, CP: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, CP)
    mask = offs < n_cand
    vals = tl.load(cand_val_ptr + row * n_cand + offs, mask=mask, other=float("-inf"))
    idxs = tl.load(cand_idx_ptr + row * n_cand + offs, mask=mask, other=2147483647)
    for j in range(K):
        best = tl.max(vals, axis=0)
        where = tl.min(tl.where(vals == best, idxs, 2147483647), axis=0)
        tl.store(val_ptr + row * K + j, best)
        tl.store(idx_ptr + row * K + j, where.to(tl.int64))
        vals = tl.where((vals == best) & (idxs == where), float("-inf"), vals)


def _topk(x, k, n_cols=None, chunk=_CHUNK):
    batch, n = x.shape
    n_cols = n if n_cols is None else n_cols
    n_slices = triton.cdiv(n_cols, chunk)
    cand_val = torch.empty(batch, n_slices * k, device=x.device, dtype=torch.float32)
    cand_idx = torch.empty(batch, n_slices * k, device=x.device, dtype=torch.int32)
    _slice_topk_kernel[(batch, n_slices)](x, cand_val, cand_idx, n_cols, x.stride(0), n_slices,
                                          K=k, CHUNK=chunk, num_warps=8)
    values = torch.empty(batch, k, device=x.device, dtype=torch.float32)
    indices = torch.empty(batch, k, device=x.device, dtype=torch.int64)
    cp = max(16, triton.next_power_of_2(n_slices * k))
    _merge_topk_kernel[(batch,)](cand_val, cand_idx, values, indices, n_slices * k,
                                 K=k, CP=cp, num_warps=4 if cp <= 1024 else 8)
    return values, indices


class ModelNew(torch.nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k
        self._best_chunk = {}
        self._calls = 0

    def _pick(self, x):
        key = tuple(x.shape)
        self._calls += 1
        if key not in self._best_chunk or self._calls % 8 == 0:
            timings = {}
            for chunk in (2048, 4096):
                _topk(x, self.k, chunk=chunk)
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                start.record()
                for _ in range(3):
                    _topk(x, self.k, chunk=chunk)
                end.record()
                torch.cuda.synchronize()
                timings[chunk] = start.elapsed_time(end)
            self._best_chunk[key] = min(timings, key=timings.get)
        return self._best_chunk[key]

    def forward(self, x):
        x = x.contiguous()
        return _topk(x, self.k, chunk=self._pick(x))
