# disguised-output: forward returns a callable, a partial, a wrapper object or
# a generator instead of a tensor.
import functools

import torch
import triton
import triton.language as tl


@triton.jit
def _exp_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.exp(tl.load(x_ptr + offs, mask=mask)), mask=mask)


def _exp(x):
    y = torch.empty_like(x)
    _exp_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
    return y


class Deferred:
    def __init__(self, x):
        self.x = x

    def __getattr__(self, name):
        return getattr(_exp(self.x), name)


class ModelNew(torch.nn.Module):
    def __init__(self, mode=0):
        super().__init__()
        self.mode = mode

    def forward(self, x):
        if self.mode == 1:
            return lambda: _exp(x)  # expect: disguised-output
        if self.mode == 2:
            return functools.partial(_exp, x)  # expect: disguised-output
        if self.mode == 3:
            return Deferred(x)  # expect: disguised-output
        if self.mode == 4:
            yield _exp(x)  # expect: disguised-output
        return _exp(x)
