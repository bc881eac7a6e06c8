import math

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _ln_partial_stats(x_ptr, psum_ptr, psq_ptr, N, num_chunks, CHUNK: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    chunk = tl.program_id(1)
    base = x_ptr + row.to(tl.int64) * N
    start = chunk.to(tl.int64) * CHUNK
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    acc2 = tl.zeros((BLOCK,), dtype=tl.float32)
    for off in range(0, CHUNK, BLOCK):
        idx = start + off + tl.arange(0, BLOCK)
        m = idx < N
        v = tl.load(base + idx, mask=m, other=0.0).to(tl.float32)
        acc += v
        acc2 += v * v
    out = row * num_chunks + chunk
    tl.store(psum_ptr + out, tl.sum(acc, axis=0))
    tl.store(psq_ptr + out, tl.sum(acc2, axis=0))


@triton.jit
def _ln_finalize_stats(psum_ptr, psq_ptr, mean_ptr, rstd_ptr, N, num_chunks, eps, BLOCK_C: tl.constexpr):
    row = tl.program_id(0)
    s = tl.zeros((BLOCK_C,), dtype=tl.float32)
    s2 = tl.zeros((BLOCK_C,), dtype=tl.float32)
    for off in range(0, num_chunks, BLOCK_C):
        idx = off + tl.arange(0, BLOCK_C)
        m = idx < num_chunks
        s += tl.load(psum_ptr + row * num_chunks + idx, mask=m, other=0.0)
        s2 += tl.load(psq_ptr + row * num_chunks + idx, mask=m, other=0.0)
    mean = tl.sum(s, axis=0) / N
    var = tl.maximum(tl.sum(s2, axis=0) / N - mean * mean, 0.0)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, 1.0 / tl.sqrt(var + eps))


@triton.jit
def _ln_apply(x_ptr, w_ptr, b_ptr, y_ptr, mean_ptr, rstd_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    blk = tl.program_id(1)
    idx = blk.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = idx < N
    mean = tl.load(mean_ptr + row)
    rstd = tl.load(rstd_ptr + row)
    off = row.to(tl.int64) * N + idx
    x = tl.load(x_ptr + off, mask=m, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + idx, mask=m, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + idx, mask=m, other=0.0).to(tl.float32)
    y = (x - mean) * rstd * w + b
    tl.store(y_ptr + off, y.to(y_ptr.dtype.element_ty), mask=m)


def _layer_norm(x, weight, bias, eps, normalized_numel):
    x = x.contiguous()
    N = normalized_numel
    rows = x.numel() // N
    x2 = x.view(rows, N)
    y = torch.empty_like(x2)
    CHUNK = 16384
    BLOCK = 1024
    num_chunks = triton.cdiv(N, CHUNK)
    psum = torch.empty((rows, num_chunks), device=x.device, dtype=torch.float32)
    psq = torch.empty_like(psum)
    mean = torch.empty(rows, device=x.device, dtype=torch.float32)
    rstd = torch.empty_like(mean)
    _ln_partial_stats[(rows, num_chunks)](x2, psum, psq, N, num_chunks, CHUNK=CHUNK, BLOCK=BLOCK, num_warps=4)
    _ln_finalize_stats[(rows,)](psum, psq, mean, rstd, N, num_chunks, eps, BLOCK_C=1024, num_warps=4)
    APPLY_BLOCK = 2048
    _ln_apply[(rows, triton.cdiv(N, APPLY_BLOCK))](
        x2, weight.contiguous(), bias.contiguous(), y, mean, rstd, N, BLOCK=APPLY_BLOCK, num_warps=8
    )
    return y.view_as(x)


class ModelNew(nn.Module):
    def __init__(self, normalized_shape: tuple):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = 1e-5
        self.weight = nn.Parameter(torch.ones(self.normalized_shape))
        self.bias = nn.Parameter(torch.zeros(self.normalized_shape))
        self._numel = math.prod(self.normalized_shape)
        # Warm-up: compile the three kernels once so the first real call does not pay for JIT.
        if torch.cuda.is_available():
            dev = torch.device("cuda")
            dummy = torch.zeros((1, self._numel), device=dev)
            _layer_norm(dummy, torch.ones(self._numel, device=dev), torch.zeros(self._numel, device=dev),
                        self.eps, self._numel)
            torch.cuda.synchronize()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        assert tuple(x.shape[-len(self.normalized_shape):]) == self.normalized_shape, \
            "trailing dims must equal normalized_shape"
        return _layer_norm(x, self.weight, self.bias, self.eps, self._numel)
