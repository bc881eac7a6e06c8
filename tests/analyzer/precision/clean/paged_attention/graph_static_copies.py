"""Paged decode attention (Triton) replayed from a CUDA graph per shape.

The graph is keyed on shapes and dtypes only. Each call copies q, the block
table and the lengths into the graph's static inputs (the KV caches are read
through their own pointers, which are also copied into static tensors when a
new cache is passed) and returns a clone of the static output.
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
    seq_len = tl.load(len_ptr + b)
    heads = hk * G + tl.arange(0, G)
    d = tl.arange(0, D)
    q = tl.load(q_ptr + b * HQ * D + heads[:, None] * D + d[None, :]).to(tl.float32) * scale
    m_i = tl.full((G,), float("-inf"), tl.float32)
    l_i = tl.zeros((G,), tl.float32)
    acc = tl.zeros((G, D), tl.float32)
    for p in range(0, tl.cdiv(seq_len, PAGE)):
        page = tl.load(bt_ptr + b * max_pages + p)
        pos = p * PAGE + tl.arange(0, PAGE)
        valid = pos < seq_len
        off = page.to(tl.int64) * PAGE * HKV * D + tl.arange(0, PAGE)[:, None] * HKV * D + hk * D + d[None, :]
        k = tl.load(k_ptr + off, mask=valid[:, None], other=0.0).to(tl.float32)
        v = tl.load(v_ptr + off, mask=valid[:, None], other=0.0).to(tl.float32)
        s = tl.where(valid[None, :], tl.sum(q[:, None, :] * k[None, :, :], axis=2), float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        a = tl.exp(m_i - m_new)
        pr = tl.exp(s - m_new[:, None])
        l_i = l_i * a + tl.sum(pr, axis=1)
        acc = acc * a[:, None] + tl.sum(pr[:, :, None] * v[None, :, :], axis=1)
        m_i = m_new
    tl.store(out_ptr + b * HQ * D + heads[:, None] * D + d[None, :], (acc / l_i[:, None]).to(tl.bfloat16))


class _Graphed:
    def __init__(self, q, k_cache, v_cache, block_table, seq_lens):
        self.q = q.clone()
        self.k = k_cache.clone()
        self.v = v_cache.clone()
        self.bt = block_table.clone()
        self.lens = seq_lens.clone()
        self.out = torch.empty_like(q)
        self.graph = torch.cuda.CUDAGraph()
        self._launch()
        torch.cuda.synchronize()
        with torch.cuda.graph(self.graph):
            self._launch()

    def _launch(self):
        b, hq, d = self.q.shape
        page, hkv = self.k.shape[1], self.k.shape[2]
        _decode[(b, hkv)](self.q, self.k, self.v, self.bt, self.lens, self.out, 1.0 / math.sqrt(d),
                          self.bt.shape[1], HQ=hq, HKV=hkv, D=d, PAGE=page, G=hq // hkv, num_warps=4)

    def run(self, q, k_cache, v_cache, block_table, seq_lens):
        self.q.copy_(q)
        self.k.copy_(k_cache)
        self.v.copy_(v_cache)
        self.bt.copy_(block_table)
        self.lens.copy_(seq_lens)
        self.graph.replay()
        return self.out.clone()


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self._graphs = {}

    def forward(self, q, k_cache, v_cache, block_table, seq_lens):
        key = (tuple(q.shape), tuple(k_cache.shape), tuple(block_table.shape), q.dtype)
        g = self._graphs.get(key)
        if g is None:
            g = self._graphs[key] = _Graphed(q, k_cache, v_cache, block_table, seq_lens)
        return g.run(q, k_cache, v_cache, block_table, seq_lens)


def get_inputs():
    q = torch.randn(8, 32, 128, device="cuda", dtype=torch.bfloat16)
    kc = torch.randn(8 * 1875 + 7, 16, 4, 128, device="cuda", dtype=torch.bfloat16)
    bt = torch.randperm(8 * 1875 + 7)[: 8 * 1875].reshape(8, 1875).to(torch.int32).cuda()
    return [q, kc, torch.randn_like(kc), bt, torch.randint(1, 30001, (8,), dtype=torch.int32).cuda()]


def get_init_inputs():
    return []
