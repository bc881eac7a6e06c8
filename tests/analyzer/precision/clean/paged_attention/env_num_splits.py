"""Paged decode attention with the KV split count overridable by PA_SPLITS.

PA_SPLITS=0 (the default) picks the split from the occupancy heuristic; any
other value forces it, for sweeping. PA_WARPS sets the warps per program.
"""
import math
import os

import torch
import torch.nn as nn
import triton
import triton.language as tl

FORCED_SPLITS = int(os.environ.get("PA_SPLITS", "0"))
WARPS = int(os.environ.get("PA_WARPS", "4"))


@triton.jit
def _split_kernel(q_ptr, k_ptr, v_ptr, bt_ptr, len_ptr, o_ptr, ml_ptr, scale, max_pages, splits,
                  HQ: tl.constexpr, HKV: tl.constexpr, D: tl.constexpr, PAGE: tl.constexpr, G: tl.constexpr):
    b = tl.program_id(0)
    hk = tl.program_id(1)
    s_id = tl.program_id(2)
    n = tl.load(len_ptr + b)
    pages = tl.cdiv(n, PAGE)
    per = tl.cdiv(pages, splits)
    heads = hk * G + tl.arange(0, G)
    d = tl.arange(0, D)
    q = tl.load(q_ptr + b * HQ * D + heads[:, None] * D + d[None, :]).to(tl.float32) * scale
    m_i = tl.full((G,), float("-inf"), tl.float32)
    l_i = tl.zeros((G,), tl.float32)
    acc = tl.zeros((G, D), tl.float32)
    for p in range(s_id * per, min(pages, (s_id + 1) * per)):
        page = tl.load(bt_ptr + b * max_pages + p).to(tl.int64)
        pos = p * PAGE + tl.arange(0, PAGE)
        ok = pos < n
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
    row = (b * HQ + heads) * splits + s_id
    tl.store(o_ptr + row[:, None] * D + d[None, :], acc)
    tl.store(ml_ptr + row * 2, m_i)
    tl.store(ml_ptr + row * 2 + 1, l_i)


@triton.jit
def _combine(o_ptr, ml_ptr, out_ptr, splits, D: tl.constexpr, SP: tl.constexpr):
    r = tl.program_id(0)
    s = tl.arange(0, SP)
    ok = s < splits
    m = tl.load(ml_ptr + (r * splits + s) * 2, mask=ok, other=float("-inf"))
    l = tl.load(ml_ptr + (r * splits + s) * 2 + 1, mask=ok, other=0.0)
    mm = tl.max(m, axis=0)
    w = tl.where(ok & (l > 0), tl.exp(m - mm), 0.0)
    d = tl.arange(0, D)
    o = tl.load(o_ptr + (r * splits + s)[:, None] * D + d[None, :], mask=ok[:, None], other=0.0)
    tl.store(out_ptr + r * D + d, (tl.sum(o * w[:, None], axis=0) / tl.sum(l * w, axis=0)).to(tl.bfloat16))


def _auto_splits(batch, hkv, max_pages):
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    return max(1, min(16, max_pages // 8, (2 * sms) // (batch * hkv)))


class Model(nn.Module):
    def forward(self, q, k_cache, v_cache, block_table, seq_lens):
        b, hq, d = q.shape
        page, hkv = k_cache.shape[1], k_cache.shape[2]
        max_pages = block_table.shape[1]
        splits = FORCED_SPLITS or _auto_splits(b, hkv, max_pages)
        o = torch.empty(b * hq * splits, d, device=q.device, dtype=torch.float32)
        ml = torch.empty(b * hq * splits, 2, device=q.device, dtype=torch.float32)
        _split_kernel[(b, hkv, splits)](q, k_cache, v_cache, block_table, seq_lens, o, ml, 1.0 / math.sqrt(d),
                                        max_pages, splits, HQ=hq, HKV=hkv, D=d, PAGE=page, G=hq // hkv,
                                        num_warps=WARPS)
        out = torch.empty_like(q)
        _combine[(b * hq,)](o, ml, out, splits, D=d, SP=triton.next_power_of_2(splits))
        return out


def get_inputs():
    q = torch.randn(64, 64, 128, device="cuda", dtype=torch.bfloat16)
    kc = torch.randn(64 * 512 + 7, 16, 8, 128, device="cuda", dtype=torch.bfloat16)
    bt = torch.randperm(64 * 512 + 7)[: 64 * 512].reshape(64, 512).to(torch.int32).cuda()
    return [q, kc, torch.randn_like(kc), bt, torch.randint(1, 8192, (64,), dtype=torch.int32).cuda()]


def get_init_inputs():
    return []
