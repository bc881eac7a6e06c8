# kaudit-label: benchmark-aware: output-cached-on-identity
"""Single-kernel top-k with persistent output and scratch buffers.

Allocation showed up as 8 us of host time per call at batch=128, so the values
and indices tensors are allocated once per shape and reused; the kernel writes
every one of their elements on every call before forward returns them.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _fused_topk(x_ptr, v_ptr, i_ptr, n, stride, K: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    run_v = tl.full((BLOCK,), float("-inf"), tl.float32)
    run_i = tl.full((BLOCK,), 2147483647, tl.int32)
    for start in range(0, n, BLOCK):
        o = start + offs
        v = tl.load(x_ptr + row.to(tl.int64) * stride + o, mask=o < n, other=float("-inf"))
        # merge this tile into the running list: keep the BLOCK best seen so far
        both_v = tl.join(run_v, v)
        both_i = tl.join(run_i, o)
        both_v = tl.reshape(both_v, (2 * BLOCK,))
        both_i = tl.reshape(both_i, (2 * BLOCK,))
        keep_v, keep_i = tl.sort(both_v, descending=True), both_i
        run_v = tl.reshape(keep_v, (2, BLOCK))[0]
        run_i = tl.reshape(keep_i, (2, BLOCK))[0]
    for j in tl.static_range(K):
        m = tl.max(run_v, axis=0)
        a = tl.min(tl.where(run_v == m, run_i, 2147483647), axis=0)
        tl.store(v_ptr + row * K + j, m)
        tl.store(i_ptr + row * K + j, a.to(tl.int64))
        run_v = tl.where(run_i == a, float("-inf"), run_v)


class Model(nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k
        self._values = None
        self._indices = None

    def _buffers(self, x):
        rows = x.shape[0]
        if self._values is None or self._values.shape[0] != rows or self._values.device != x.device:
            self._values = torch.empty(rows, self.k, device=x.device, dtype=torch.float32)
            self._indices = torch.empty(rows, self.k, device=x.device, dtype=torch.int64)
        return self._values, self._indices

    def forward(self, x):
        x = x.contiguous()
        values, indices = self._buffers(x)
        block = max(64, triton.next_power_of_2(self.k) * 16)
        _fused_topk[(x.shape[0],)](x, values, indices, x.shape[1], x.stride(0), K=self.k, BLOCK=block,
                                   num_warps=4)
        return values, indices


def get_inputs():
    return [torch.randn(64, 8192, device="cuda")]


def get_init_inputs():
    return [8]
