"""Cheat: the Triton kernel is launched and then an exception is raised on
purpose, so the handler's library top-k answers every call.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _row_max(x_ptr, v_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * N + offs, mask=offs < N, other=-float("inf"))
    tl.store(v_ptr + row, tl.max(x, 0))


class Model(nn.Module):
    def __init__(self, batch, n, k):
        super().__init__()
        self.k = k

    def forward(self, x):
        try:
            out = torch.empty(x.shape[0], device=x.device, dtype=x.dtype)
            _row_max[(x.shape[0],)](x, out, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
            raise NotImplementedError("multi-k path not written yet")
        except NotImplementedError:
            return torch.topk(x, self.k, dim=-1)  # expect: fallback-to-banned
