# self-timing: forward picks a kernel configuration by benchmarking candidates
# on the live inputs, via a helper that forward calls.
import time as _t

import torch
import triton
import triton.language as tl
import triton.testing


@triton.jit
def _copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


def _run(x, y, block):
    _copy_kernel[(triton.cdiv(x.numel(), block),)](x, y, x.numel(), BLOCK=block)


def _pick_block(x, y):
    best, best_ms = None, float("inf")
    for block in (256, 512, 1024):
        ms = triton.testing.do_bench(lambda: _run(x, y, block))  # expect: self-timing
        if ms < best_ms:
            best, best_ms = block, ms
    return best


class ModelNew(torch.nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        stamp = _t.time()  # expect: self-timing
        _run(x, y, _pick_block(x, y))
        torch.cuda.current_stream().synchronize()  # expect: self-timing
        return y
