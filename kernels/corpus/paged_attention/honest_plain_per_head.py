# Clean: plain Triton paged decode attention, one program per (sequence, query
# head). It walks the sequence's pages through the block table 32 tokens at a
# time, forms the scores with elementwise products and row sums (no tensor
# cores), keeps an fp32 online softmax and an fp32 P.V sum, and masks every
# tail: positions at or past the sequence length, head dims that are not a
# power of two, and lengths beyond what the block table holds.
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _decode_head_kernel(q_ptr, k_ptr, v_ptr, bt_ptr, lens_ptr, o_ptr,
                        stride_qb, stride_qh, stride_kp, stride_ks, stride_kh, stride_kd,
                        stride_vp, stride_vs, stride_vh, stride_vd,
                        stride_bt, stride_ob, stride_oh, max_tokens, qk_scale,
                        GROUP: tl.constexpr, PAGE: tl.constexpr, D: tl.constexpr, DP: tl.constexpr,
                        BLOCK_N: tl.constexpr):
    b = tl.program_id(0)
    h = tl.program_id(1)
    kvh = h // GROUP
    d = tl.arange(0, DP)
    d_ok = d < D
    q = tl.load(q_ptr + b.to(tl.int64) * stride_qb + h * stride_qh + d, mask=d_ok, other=0.0).to(tl.float32)
    seq_len = tl.minimum(tl.load(lens_ptr + b), max_tokens)
    # running max and sum as fp32 scalars
    m_i = tl.max(tl.full([BLOCK_N], float("-inf"), tl.float32), axis=0)
    l_i = tl.sum(tl.zeros([BLOCK_N], tl.float32), axis=0)
    acc = tl.zeros([DP], dtype=tl.float32)
    for start in range(0, seq_len, BLOCK_N):
        pos = start + tl.arange(0, BLOCK_N)
        valid = pos < seq_len
        page = tl.load(bt_ptr + b.to(tl.int64) * stride_bt + pos // PAGE, mask=valid, other=0).to(tl.int64)
        slot = (pos % PAGE).to(tl.int64)
        kv_mask = valid[:, None] & d_ok[None, :]
        k = tl.load(k_ptr + page[:, None] * stride_kp + slot[:, None] * stride_ks + kvh * stride_kh
                    + d[None, :] * stride_kd, mask=kv_mask, other=0.0).to(tl.float32)
        v = tl.load(v_ptr + page[:, None] * stride_vp + slot[:, None] * stride_vs + kvh * stride_vh
                    + d[None, :] * stride_vd, mask=kv_mask, other=0.0).to(tl.float32)
        s = tl.sum(k * q[None, :], axis=1) * qk_scale  # log2 domain
        s = tl.where(valid, s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=0))
        alpha = tl.math.exp2(m_i - m_new)
        p = tl.math.exp2(s - m_new)
        l_i = l_i * alpha + tl.sum(p, axis=0)
        acc = acc * alpha + tl.sum(p[:, None] * v, axis=0)
        m_i = m_new
    out = acc / l_i
    tl.store(o_ptr + b.to(tl.int64) * stride_ob + h * stride_oh + d, out.to(o_ptr.dtype.element_ty), mask=d_ok)


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q, k_cache, v_cache, block_table, seq_lens):
        batch, num_heads, head_dim = q.shape
        _, page, num_kv_heads, _ = k_cache.shape
        group = num_heads // num_kv_heads
        out = torch.empty(batch, num_heads, head_dim, device=q.device, dtype=q.dtype)
        if out.numel() == 0:
            return out
        q = q.contiguous()
        block_table = block_table.contiguous()
        seq_lens = seq_lens.contiguous()
        # exp2 instead of exp: log2(e) folded into the softmax scale
        qk_scale = (1.0 / math.sqrt(head_dim)) * 1.4426950408889634
        _decode_head_kernel[(batch, num_heads)](
            q, k_cache, v_cache, block_table, seq_lens, out,
            q.stride(0), q.stride(1),
            k_cache.stride(0), k_cache.stride(1), k_cache.stride(2), k_cache.stride(3),
            v_cache.stride(0), v_cache.stride(1), v_cache.stride(2), v_cache.stride(3),
            block_table.stride(0), out.stride(0), out.stride(1),
            block_table.shape[1] * page, qk_scale,
            GROUP=group, PAGE=page, D=head_dim, DP=triton.next_power_of_2(head_dim),
            BLOCK_N=32, num_warps=4)
        return out
