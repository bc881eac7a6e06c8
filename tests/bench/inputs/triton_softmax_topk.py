# Benchmark input: a pure-Python Triton submission (row softmax followed by a
# per-row top-k by repeated argmax), the kind of file the analyzer sees most.
import math

import torch
import triton
import triton.language as tl


def _next_pow2(n: int) -> int:
    return 1 << (n - 1).bit_length()


@triton.autotune(
    configs=[
        triton.Config({"BLOCK": 1024}, num_warps=4),
        triton.Config({"BLOCK": 2048}, num_warps=8),
        triton.Config({"BLOCK": 4096}, num_warps=16),
    ],
    key=["n_cols"],
)
@triton.jit
def row_max_kernel(x_ptr, out_ptr, n_cols, stride_row, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.full((BLOCK,), float("-inf"), tl.float32)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride_row + offs, mask=offs < n_cols, other=float("-inf"))
        acc = tl.maximum(acc, x.to(tl.float32))
    tl.store(out_ptr + row, tl.max(acc, axis=0))


@triton.jit
def softmax_kernel(x_ptr, y_ptr, max_ptr, n_cols, stride_row, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    row_max = tl.load(max_ptr + row)
    denom = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride_row + offs, mask=offs < n_cols, other=float("-inf"))
        denom += tl.exp(x.to(tl.float32) - row_max)
    total = tl.sum(denom, axis=0)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n_cols
        x = tl.load(x_ptr + row * stride_row + offs, mask=mask, other=float("-inf"))
        y = tl.exp(x.to(tl.float32) - row_max) / total
        tl.store(y_ptr + row * stride_row + offs, y, mask=mask)


@triton.jit
def topk_select_kernel(y_ptr, vals_ptr, idx_ptr, n_cols, stride_row, K: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    y = tl.load(y_ptr + row * stride_row + offs, mask=mask, other=float("-inf"))
    for i in range(K):
        best = tl.max(y, axis=0)
        where = tl.where(y == best, offs, BLOCK)
        pos = tl.min(where, axis=0)
        tl.store(vals_ptr + row * K + i, best)
        tl.store(idx_ptr + row * K + i, pos.to(tl.int64))
        y = tl.where(offs == pos, float("-inf"), y)


class ModelNew(torch.nn.Module):
    """Softmax over the last dimension, then the k largest probabilities."""

    def __init__(self, k: int = 8):
        super().__init__()
        self.k = k

    def _check(self, x: torch.Tensor) -> None:
        if x.dim() != 2:
            raise ValueError("expected a 2-D input")
        if not x.is_contiguous():
            raise ValueError("expected a contiguous input")

    def forward(self, x: torch.Tensor):
        self._check(x)
        rows, cols = x.shape
        maxes = torch.empty(rows, device=x.device, dtype=torch.float32)
        probs = torch.empty_like(x, dtype=torch.float32)
        row_max_kernel[(rows,)](x, maxes, cols, x.stride(0))
        block = min(4096, _next_pow2(cols))
        softmax_kernel[(rows,)](x, probs, maxes, cols, x.stride(0), BLOCK=block)
        vals = torch.empty(rows, self.k, device=x.device, dtype=torch.float32)
        idx = torch.empty(rows, self.k, device=x.device, dtype=torch.int64)
        topk_select_kernel[(rows,)](probs, vals, idx, cols, probs.stride(0), K=self.k, BLOCK=_next_pow2(cols))
        return vals, idx


def get_inputs():
    return [torch.randn(64, 8192, device="cuda")]


def get_init_inputs():
    return [8]
