"""Paged decode attention (Triton), with a first-call self-check per shape.

The kernel uses an online softmax in base 2 with the log2(e) factor folded
into the scale. Because a silent NaN in the exp2 path once cost a day, the
module checks its first output for every new shape against a dense fp32
softmax of the gathered pages (the check is skipped on later calls and raises
if the kernel is wrong, it never replaces the kernel's answer).
"""
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl

LOG2E = 1.4426950408889634


@triton.jit
def _attn(q_ptr, k_ptr, v_ptr, bt_ptr, len_ptr, out_ptr, scale2, max_pages,
          HQ: tl.constexpr, HKV: tl.constexpr, D: tl.constexpr, PAGE: tl.constexpr, G: tl.constexpr):
    b = tl.program_id(0)
    hk = tl.program_id(1)
    n = tl.load(len_ptr + b)
    heads = hk * G + tl.arange(0, G)
    d = tl.arange(0, D)
    q = tl.load(q_ptr + b * HQ * D + heads[:, None] * D + d[None, :]).to(tl.float32) * scale2
    m_i = tl.full((G,), float("-inf"), tl.float32)
    l_i = tl.zeros((G,), tl.float32)
    acc = tl.zeros((G, D), tl.float32)
    for p in range(0, tl.cdiv(n, PAGE)):
        page = tl.load(bt_ptr + b * max_pages + p).to(tl.int64)
        pos = p * PAGE + tl.arange(0, PAGE)
        ok = pos < n
        off = page * PAGE * HKV * D + tl.arange(0, PAGE)[:, None] * HKV * D + hk * D + d[None, :]
        k = tl.load(k_ptr + off, mask=ok[:, None], other=0.0).to(tl.float32)
        v = tl.load(v_ptr + off, mask=ok[:, None], other=0.0).to(tl.float32)
        s = tl.where(ok[None, :], tl.sum(q[:, None, :] * k[None, :, :], axis=2), float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        a = tl.exp2(m_i - m_new)
        pr = tl.exp2(s - m_new[:, None])
        l_i = l_i * a + tl.sum(pr, axis=1)
        acc = acc * a[:, None] + tl.sum(pr[:, :, None] * v[None, :, :], axis=1)
        m_i = m_new
    tl.store(out_ptr + b * HQ * D + heads[:, None] * D + d[None, :], (acc / l_i[:, None]).to(tl.bfloat16))


def _dense_check(out, q, k_cache, v_cache, block_table, seq_lens):
    b, hq, d = q.shape
    page, hkv = k_cache.shape[1], k_cache.shape[2]
    L = block_table.shape[1] * page
    k = k_cache[block_table.long()].reshape(b, L, hkv, d).permute(0, 2, 1, 3).float()
    v = v_cache[block_table.long()].reshape(b, L, hkv, d).permute(0, 2, 1, 3).float()
    qf = q.float().reshape(b, hkv, hq // hkv, d)
    s = torch.einsum("bhgd,bhld->bhgl", qf, k) / math.sqrt(d)
    mask = torch.arange(L, device=q.device)[None, :] < seq_lens[:, None].long()
    p = torch.softmax(s.masked_fill(~mask[:, None, None, :], float("-inf")), dim=-1)
    want = torch.einsum("bhgl,bhld->bhgd", p, v).reshape(b, hq, d)
    err = (out.float() - want).abs().max().item()
    if not err < 2e-2:
        raise RuntimeError(f"paged attention self-check failed: max error {err}")


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self._checked = set()

    def forward(self, q, k_cache, v_cache, block_table, seq_lens):
        b, hq, d = q.shape
        page, hkv = k_cache.shape[1], k_cache.shape[2]
        out = torch.empty_like(q)
        _attn[(b, hkv)](q, k_cache, v_cache, block_table, seq_lens, out, LOG2E / math.sqrt(d),
                        block_table.shape[1], HQ=hq, HKV=hkv, D=d, PAGE=page, G=hq // hkv, num_warps=4)
        shape = (b, hq, d, hkv, block_table.shape[1])
        if shape not in self._checked:
            _dense_check(out, q, k_cache, v_cache, block_table, seq_lens)
            self._checked.add(shape)
        return out


def get_inputs():
    q = torch.randn(32, 32, 128, device="cuda", dtype=torch.bfloat16)
    kc = torch.randn(8007, 16, 8, 128, device="cuda", dtype=torch.bfloat16)
    bt = torch.randperm(8007)[:8000].reshape(32, 250).to(torch.int32).cuda()
    return [q, kc, torch.randn_like(kc), bt, torch.randint(1, 4001, (32,), dtype=torch.int32).cuda()]


def get_init_inputs():
    return []
