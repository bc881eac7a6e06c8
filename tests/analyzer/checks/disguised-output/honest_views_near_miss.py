# disguised-output near-misses: a bias broadcast that is added (not returned
# as is), as_strided with real strides, views of a full-size output, and a
# plain nn.Module helper class.
import torch
import triton
import triton.language as tl


@triton.jit
def _add_kernel(x_ptr, b_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask)
    b = tl.load(b_ptr + cols, mask=mask)
    tl.store(y_ptr + row * n_cols + cols, x + b, mask=mask)


class Helper(torch.nn.Module):
    def forward(self, x):
        return x


class ModelNew(torch.nn.Module):
    def __init__(self, cols):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.zeros(cols))
        self.helper = Helper()

    def forward(self, x):
        rows, cols = x.shape
        y = torch.empty_like(x)
        _add_kernel[(rows,)](x, self.bias, y, cols, BLOCK=triton.next_power_of_2(cols))
        windows = y.as_strided((rows, cols // 2), (cols, 1))
        scale = torch.ones(1, device=x.device).expand(rows, cols)
        y = y * scale
        return self.helper(y.view(rows, cols).contiguous()) if windows.numel() else y
