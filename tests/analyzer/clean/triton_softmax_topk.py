# Clean: a row softmax and a row top-k written in Triton. torch appears only
# for allocation and views (torch.empty, .view, .contiguous, .stride); the
# selection is a k-step argmax done by the kernel itself.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _softmax_kernel(x_ptr, y_ptr, x_row_stride, y_row_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_row_stride + cols, mask=mask, other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    den = tl.sum(num, axis=0)
    tl.store(y_ptr + row * y_row_stride + cols, num / den, mask=mask)


@triton.jit
def _topk_kernel(x_ptr, vals_ptr, idx_ptr, x_row_stride, n_cols, K: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_row_stride + cols, mask=mask, other=-float("inf")).to(tl.float32)
    for i in tl.static_range(K):
        best = tl.max(x, axis=0)
        # lowest column among the maxima, so ties resolve like a stable sort
        where = tl.where(x == best, cols, BLOCK)
        arg = tl.min(where, axis=0)
        tl.store(vals_ptr + row * K + i, best)
        tl.store(idx_ptr + row * K + i, arg.to(tl.int64))
        x = tl.where(cols == arg, -float("inf"), x)


def softmax_rows(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    y = torch.empty((rows, cols), device=x.device, dtype=torch.float32)
    block = triton.next_power_of_2(cols)
    num_warps = 4 if block <= 2048 else 8 if block <= 8192 else 16
    _softmax_kernel[(rows,)](x, y, x.stride(0), y.stride(0), cols, BLOCK=block, num_warps=num_warps)
    return y


def topk_rows(x: torch.Tensor, k: int):
    rows, cols = x.shape
    vals = torch.empty((rows, k), device=x.device, dtype=torch.float32)
    idx = torch.empty((rows, k), device=x.device, dtype=torch.int64)
    block = triton.next_power_of_2(cols)
    _topk_kernel[(rows,)](x, vals, idx, x.stride(0), cols, K=k, BLOCK=block, num_warps=8)
    return vals, idx


class ModelNew(nn.Module):
    def __init__(self, k: int = 8):
        super().__init__()
        self.k = k

    def forward(self, x: torch.Tensor):
        lead = x.shape[:-1]
        flat = x.contiguous().view(-1, x.shape[-1])
        probs = softmax_rows(flat)
        vals, idx = topk_rows(probs, self.k)
        return (
            probs.view(*lead, x.shape[-1]),
            vals.view(*lead, self.k),
            idx.view(*lead, self.k),
        )


def get_inputs():
    return [torch.randn(64, 4096, device="cuda")]


def get_init_inputs():
    return [8]
