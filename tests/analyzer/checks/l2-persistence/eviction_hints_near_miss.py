# l2-persistence near-miss: Triton cache hints (evict_last, cache_modifier) keep
# lines warm within one call; they do not survive the benchmark's L2 flush.
import torch
import triton
import triton.language as tl


@triton.jit
def _rowsum_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0, eviction_policy="evict_last")
    w = tl.load(x_ptr + cols, mask=mask, other=0.0, cache_modifier=".ca")
    tl.store(y_ptr + row, tl.sum(x * w, axis=0))


class ModelNew(torch.nn.Module):
    def forward(self, x):
        rows, cols = x.shape
        y = torch.empty(rows, device=x.device, dtype=x.dtype)
        persisting_l2_bytes = 0  # a variable name is not the API
        _rowsum_kernel[(rows,)](x, y, cols, BLOCK=triton.next_power_of_2(cols))
        return y
