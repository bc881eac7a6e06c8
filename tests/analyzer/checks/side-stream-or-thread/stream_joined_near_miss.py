# side-stream-or-thread near-misses: the current and default streams, events
# used on the current stream, and names that merely contain "thread".
import torch
import triton
import triton.language as tl


@triton.jit
def _relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, tl.where(x > 0, x, 0.0), mask=mask)


def threads_per_block(n):
    return 256 if n < 4096 else 1024


class ModelNew(torch.nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        n = x.numel()
        block = threads_per_block(n)
        stream = torch.cuda.current_stream(x.device)
        default = torch.cuda.default_stream(x.device)
        _relu_kernel[(triton.cdiv(n, block),)](x, y, n, BLOCK=block)
        stream.wait_stream(default)
        return y
