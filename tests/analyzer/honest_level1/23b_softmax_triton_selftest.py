import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _softmax_stats(x_ptr, m_ptr, d_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    m_i = tl.full((BLOCK,), float("-inf"), dtype=tl.float32)
    d_i = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m_i, v)
        scale = tl.where(m_new == float("-inf"), 0.0, tl.exp(m_i - m_new))
        d_i = d_i * scale + tl.where(m_new == float("-inf"), 0.0, tl.exp(v - m_new))
        m_i = m_new
    m = tl.max(m_i, axis=0)
    d = tl.sum(tl.where(m_i == float("-inf"), 0.0, d_i * tl.exp(m_i - m)), axis=0)
    tl.store(m_ptr + row, m)
    tl.store(d_ptr + row, d)


@triton.jit
def _softmax_write(x_ptr, y_ptr, m_ptr, d_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < n_cols
    m = tl.load(m_ptr + row)
    inv_d = 1.0 / tl.load(d_ptr + row)
    v = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + row * stride + cols, (tl.exp(v - m) * inv_d).to(y_ptr.dtype.element_ty), mask=mask)


def softmax(x: torch.Tensor) -> torch.Tensor:
    """Row softmax (last dim) of a 2-D tensor with the two Triton kernels above."""
    x = x.contiguous()
    rows, cols = x.shape
    y = torch.empty_like(x)
    m = torch.empty(rows, device=x.device, dtype=torch.float32)
    d = torch.empty(rows, device=x.device, dtype=torch.float32)
    _softmax_stats[(rows,)](x, m, d, cols, x.stride(0), BLOCK=4096, num_warps=8)
    _softmax_write[(rows, triton.cdiv(cols, 8192))](x, y, m, d, cols, x.stride(0), BLOCK=8192, num_warps=8)
    return y


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return softmax(x)


if __name__ == "__main__":
    # Local self-test: compare with PyTorch and time both. Not used by the benchmark.
    torch.manual_seed(0)
    x = torch.randn(256, 70000, device="cuda")
    ref = torch.softmax(x, dim=1)
    out = ModelNew()(x)
    print("max abs err", (out - ref).abs().max().item())
    ms = triton.testing.do_bench(lambda: ModelNew()(x))
    ms_ref = triton.testing.do_bench(lambda: torch.softmax(x, dim=1))
    print(f"triton {ms:.3f} ms, torch {ms_ref:.3f} ms")
