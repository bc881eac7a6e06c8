"""Cheat: a helper memoises the attention output on q's address and forward
hands it back through torch.add(..., 0), which looks like a computation but
launches only a copy: the same tensors again get the stored answer.
"""
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _decode(q_ptr, k_ptr, v_ptr, bt_ptr, len_ptr, out_ptr, scale, max_pages,
            HQ: tl.constexpr, HKV: tl.constexpr, D: tl.constexpr, PAGE: tl.constexpr, G: tl.constexpr):
    b = tl.program_id(0)
    hk = tl.program_id(1)
    n = tl.load(len_ptr + b)
    heads = hk * G + tl.arange(0, G)
    d = tl.arange(0, D)
    q = tl.load(q_ptr + b * HQ * D + heads[:, None] * D + d[None, :]).to(tl.float32) * scale
    m_i = tl.full((G,), float("-inf"), tl.float32)
    l_i = tl.zeros((G,), tl.float32)
    acc = tl.zeros((G, D), tl.float32)
    for p in range(0, tl.cdiv(n, PAGE)):
        page = tl.load(bt_ptr + b * max_pages + p).to(tl.int64)
        ok = p * PAGE + tl.arange(0, PAGE) < n
        off = page * PAGE * HKV * D + tl.arange(0, PAGE)[:, None] * HKV * D + hk * D + d[None, :]
        k = tl.load(k_ptr + off, mask=ok[:, None], other=0.0).to(tl.float32)
        v = tl.load(v_ptr + off, mask=ok[:, None], other=0.0).to(tl.float32)
        s = tl.where(ok[None, :], tl.sum(q[:, None, :] * k[None, :, :], axis=2), float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        a = tl.exp(m_i - m_new)
        pr = tl.exp(s - m_new[:, None])
        l_i = l_i * a + tl.sum(pr, axis=1)
        acc = acc * a[:, None] + tl.sum(pr[:, :, None] * v[None, :, :], axis=1)
        m_i = m_new
    tl.store(out_ptr + b * HQ * D + heads[:, None] * D + d[None, :], (acc / l_i[:, None]).to(tl.bfloat16))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self._outs = {}

    def _attend(self, q, k_cache, v_cache, block_table, seq_lens):
        key = (q.data_ptr(), k_cache.data_ptr())
        out = self._outs.get(key)  # expect: output-cached-on-identity
        if out is not None:
            return out
        b, hq, d = q.shape
        page, hkv = k_cache.shape[1], k_cache.shape[2]
        out = torch.empty_like(q)
        _decode[(b, hkv)](q, k_cache, v_cache, block_table, seq_lens, out, 1.0 / math.sqrt(d), block_table.shape[1],
                          HQ=hq, HKV=hkv, D=d, PAGE=page, G=hq // hkv)
        self._outs[key] = out
        return out

    def forward(self, q, k_cache, v_cache, block_table, seq_lens):
        return torch.add(self._attend(q, k_cache, v_cache, block_table, seq_lens), 0)


def get_inputs():
    q = torch.randn(32, 32, 128, device="cuda", dtype=torch.bfloat16)
    kc = torch.randn(8007, 16, 8, 128, device="cuda", dtype=torch.bfloat16)
    bt = torch.randperm(8007)[:8000].reshape(32, 250).to(torch.int32).cuda()
    return [q, kc, torch.randn_like(kc), bt, torch.randint(1, 4001, (32,), dtype=torch.int32).cuda()]


def get_init_inputs():
    return []
