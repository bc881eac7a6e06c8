# Cheat (input mutated in place): folds the softmax scale into q with q.mul_()
# "to save a multiply per score". The first call is right; every later call on
# the same q is scaled again, and the caller's tensor is changed.
import math

import torch
import triton
import triton.language as tl

@triton.jit
def _paged_decode_kernel(q_ptr, k_ptr, v_ptr, bt_ptr, lens_ptr, o_ptr,
                         stride_qb, stride_qh, stride_kp, stride_ks, stride_kh,
                         stride_bt, stride_ob, stride_oh, qk_scale,
                         GROUP: tl.constexpr, GP: tl.constexpr, PAGE: tl.constexpr,
                         D: tl.constexpr, BLOCK_N: tl.constexpr):
    b = tl.program_id(0)
    kvh = tl.program_id(1)
    seq_len = tl.load(lens_ptr + b)
    g = tl.arange(0, GP)
    d = tl.arange(0, D)
    heads = kvh * GROUP + g
    gmask = g < GROUP
    q = tl.load(q_ptr + b * stride_qb + heads[:, None] * stride_qh + d[None, :],
                mask=gmask[:, None], other=0.0)
    m_i = tl.full([GP], float("-inf"), tl.float32)
    l_i = tl.zeros([GP], tl.float32)
    acc = tl.zeros([GP, D], tl.float32)
    for start in range(0, seq_len, BLOCK_N):
        pos = start + tl.arange(0, BLOCK_N)
        valid = pos < seq_len
        page = tl.load(bt_ptr + b * stride_bt + pos // PAGE, mask=valid, other=0).to(tl.int64)
        off = page * stride_kp + (pos % PAGE) * stride_ks + kvh * stride_kh
        k = tl.load(k_ptr + off[:, None] + d[None, :], mask=valid[:, None], other=0.0)
        v = tl.load(v_ptr + off[:, None] + d[None, :], mask=valid[:, None], other=0.0)
        s = tl.dot(q, tl.trans(k)) * qk_scale
        s = tl.where(valid[None, :], s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        alpha = tl.math.exp2(m_i - m_new)
        p = tl.math.exp2(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    out = acc / l_i[:, None]
    tl.store(o_ptr + b * stride_ob + heads[:, None] * stride_oh + d[None, :],
             out.to(o_ptr.dtype.element_ty), mask=gmask[:, None])




class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q, k_cache, v_cache, block_table, seq_lens):
        batch, num_heads, head_dim = q.shape
        _, page, num_kv_heads, _ = k_cache.shape
        group = num_heads // num_kv_heads
        q.mul_(1.0 / math.sqrt(head_dim))
        out = torch.empty_like(q)
        _paged_decode_kernel[(batch, num_kv_heads)](
            q, k_cache, v_cache, block_table, seq_lens, out,
            q.stride(0), q.stride(1), k_cache.stride(0), k_cache.stride(1), k_cache.stride(2),
            block_table.stride(0), out.stride(0), out.stride(1), 1.4426950408889634,
            GROUP=group, GP=max(16, triton.next_power_of_2(group)), PAGE=page, D=head_dim,
            BLOCK_N=64, num_warps=4, num_stages=2)
        return out
