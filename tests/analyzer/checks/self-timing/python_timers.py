# self-timing: a Triton kernel whose forward measures itself with CUDA events
# and host clocks and changes path when it believes it is being timed.
import time
from time import perf_counter as pc

import torch
import triton
import triton.language as tl
from triton.testing import do_bench


@triton.jit
def _scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x * 2.0, mask=mask)


def _launch(x, y):
    n = x.numel()
    _scale_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = []
        # An event made in __init__ is not itself on the forward path.
        self.start = torch.cuda.Event(enable_timing=True)

    def forward(self, x):
        y = torch.empty_like(x)
        t0 = time.perf_counter()  # expect: self-timing
        start = torch.cuda.Event(enable_timing=True)  # expect: self-timing
        end = torch.cuda.Event(enable_timing=True)  # expect: self-timing
        plain = torch.cuda.Event()  # a sync-only event is not timing
        start.record()
        _launch(x, y)
        end.record()
        torch.cuda.synchronize()  # expect: self-timing
        ms = start.elapsed_time(end)  # expect: self-timing
        self.calls.append((pc() - t0, ms))  # expect: self-timing
        if time.monotonic_ns() % 2 == 0:  # expect: self-timing
            pass
        return y

    def tune(self, x):
        # Not reached from forward: a helper the author used while developing.
        return do_bench(lambda: self.forward(x))


def bench_main():
    m = ModelNew()
    x = torch.randn(1 << 20, device="cuda")
    t = time.time()
    m(x)
    return time.time() - t


if __name__ == "__main__":
    print(time.perf_counter(), bench_main())
