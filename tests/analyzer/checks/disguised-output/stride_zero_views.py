# disguised-output: full-size outputs backed by one element (zero strides).
import torch
import triton
import triton.language as tl


@triton.jit
def _mean_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr, tl.sum(x, axis=0) / n)


class ModelNew(torch.nn.Module):
    def __init__(self, mode=0):
        super().__init__()
        self.mode = mode

    def forward(self, x):
        m, n = x.shape
        cell = torch.empty(1, device=x.device, dtype=x.dtype)
        _mean_kernel[(1,)](x, cell, x.numel(), BLOCK=1024)
        if self.mode == 1:
            return cell.as_strided((m, n), (0, 0))  # expect: disguised-output
        if self.mode == 2:
            out = torch.zeros(1, 1, device=x.device).expand(m, n)  # expect: disguised-output
            return out
        if self.mode == 3:
            return torch.as_strided(cell, (m, n), (0, 1))  # expect: disguised-output
        return cell.expand(m, n)  # expect: disguised-output
