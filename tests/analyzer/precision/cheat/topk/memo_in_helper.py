"""Cheat: the top-k of an input is memoised on the activation's address in a
helper; forward returns the helper's stored result, so a timed call on the
same tensor launches nothing and new values in the same memory get the old
answer.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _select(x_ptr, v_ptr, i_ptr, n, K: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    v = tl.load(x_ptr + row * n + offs, mask=offs < n, other=float("-inf"))
    for j in tl.static_range(K):
        m = tl.max(v, axis=0)
        a = tl.min(tl.where(v == m, offs, 2147483647), axis=0)
        tl.store(v_ptr + row * K + j, m)
        tl.store(i_ptr + row * K + j, a.to(tl.int64))
        v = tl.where(offs == a, float("-inf"), v)


class Model(nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k
        self._results = {}

    def _topk(self, x):
        key = (x.data_ptr(), x.shape[0], x.shape[1])
        if key in self._results:  # expect: output-cached-on-identity
            return self._results[key]
        values = torch.empty(x.shape[0], self.k, device=x.device, dtype=x.dtype)
        indices = torch.empty(x.shape[0], self.k, device=x.device, dtype=torch.int64)
        _select[(x.shape[0],)](x, values, indices, x.shape[1], K=self.k,
                               BLOCK=triton.next_power_of_2(x.shape[1]))
        self._results[key] = (values, indices)
        return values, indices

    def forward(self, x):
        values, indices = self._topk(x.contiguous())
        return values, indices


def get_inputs():
    return [torch.randn(64, 8192, device="cuda")]


def get_init_inputs():
    return [8]
