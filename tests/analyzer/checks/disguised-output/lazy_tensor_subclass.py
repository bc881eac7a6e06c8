# disguised-output: forward returns a tensor subclass that computes the answer
# only when the checker touches it, outside the timed interval.
import torch
import triton
import triton.language as tl
from torch.utils._python_dispatch import TorchDispatchMode


@triton.jit
def _sq_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x * x, mask=mask)


def _square(x):
    y = torch.empty_like(x)
    _sq_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
    return y


class LazyResult(torch.Tensor):  # expect: disguised-output
    @staticmethod
    def __new__(cls, src):
        t = torch.Tensor._make_wrapper_subclass(cls, src.shape, dtype=src.dtype, device=src.device)  # expect: disguised-output
        t.src = src
        return t

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):  # expect: disguised-output
        args = [_square(a.src) if isinstance(a, LazyResult) else a for a in args]
        return func(*args, **(kwargs or {}))


class Quiet(TorchDispatchMode):  # expect: disguised-output
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # expect: disguised-output
        return func(*args, **(kwargs or {}))


class Sub(LazyResult):  # expect: disguised-output
    pass


class ModelNew(torch.nn.Module):
    def forward(self, x):
        if x.numel() < 16:
            return _square(x)
        return LazyResult(x)  # expect: disguised-output
