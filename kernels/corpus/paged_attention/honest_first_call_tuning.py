# Clean: Triton paged GQA decode (one program per sequence and KV head, online
# softmax, tl.dot with fp32 accumulation) whose token block size is tuned on the
# first call for each input shape: 32, 64 and 128 are each run once to compile,
# then timed over three launches with CUDA events, and the fastest is stored in
# a dict keyed by the shapes and dtypes (never by addresses or tensor
# identity). Later calls with that shape launch only the stored choice; every
# candidate computes the same answer into a scratch tensor of its own.
import math

import torch
import triton
import triton.language as tl

_CANDIDATES = (32, 64, 128)


@triton.jit
def _decode_gqa_kernel(q_ptr, k_ptr, v_ptr, bt_ptr, lens_ptr, o_ptr,
                       stride_qb, stride_qh, stride_kp, stride_ks, stride_kh,
                       stride_vp, stride_vs, stride_vh,
                       stride_bt, stride_ob, stride_oh, max_tokens, qk_scale,
                       GROUP: tl.constexpr, GP: tl.constexpr, PAGE: tl.constexpr,
                       D: tl.constexpr, DP: tl.constexpr, BLOCK_N: tl.constexpr):
    b = tl.program_id(0)
    kvh = tl.program_id(1)
    seq_len = tl.minimum(tl.load(lens_ptr + b), max_tokens)
    g = tl.arange(0, GP)
    d = tl.arange(0, DP)
    d_ok = d < D
    heads = kvh * GROUP + g
    g_ok = g < GROUP
    q = tl.load(q_ptr + b.to(tl.int64) * stride_qb + heads[:, None] * stride_qh + d[None, :],
                mask=g_ok[:, None] & d_ok[None, :], other=0.0)
    m_i = tl.full([GP], float("-inf"), tl.float32)
    l_i = tl.zeros([GP], tl.float32)
    acc = tl.zeros([GP, DP], tl.float32)
    for start in range(0, seq_len, BLOCK_N):
        pos = start + tl.arange(0, BLOCK_N)
        valid = pos < seq_len
        page = tl.load(bt_ptr + b.to(tl.int64) * stride_bt + pos // PAGE, mask=valid, other=0).to(tl.int64)
        slot = (pos % PAGE).to(tl.int64)
        kv_mask = valid[:, None] & d_ok[None, :]
        k = tl.load(k_ptr + page[:, None] * stride_kp + slot[:, None] * stride_ks + kvh * stride_kh + d[None, :],
                    mask=kv_mask, other=0.0)
        v = tl.load(v_ptr + page[:, None] * stride_vp + slot[:, None] * stride_vs + kvh * stride_vh + d[None, :],
                    mask=kv_mask, other=0.0)
        s = tl.dot(q, tl.trans(k), out_dtype=tl.float32) * qk_scale
        s = tl.where(valid[None, :], s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        alpha = tl.math.exp2(m_i - m_new)
        p = tl.math.exp2(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v, out_dtype=tl.float32)
        m_i = m_new
    out = acc / l_i[:, None]
    tl.store(o_ptr + b.to(tl.int64) * stride_ob + heads[:, None] * stride_oh + d[None, :],
             out.to(o_ptr.dtype.element_ty), mask=g_ok[:, None] & d_ok[None, :])


def _decode(q, k_cache, v_cache, block_table, seq_lens, block_n):
    batch, num_heads, head_dim = q.shape
    _, page, num_kv_heads, _ = k_cache.shape
    group = num_heads // num_kv_heads
    out = torch.empty(batch, num_heads, head_dim, device=q.device, dtype=q.dtype)
    qk_scale = (1.0 / math.sqrt(head_dim)) * 1.4426950408889634  # exp2 domain
    _decode_gqa_kernel[(batch, num_kv_heads)](
        q, k_cache, v_cache, block_table, seq_lens, out,
        q.stride(0), q.stride(1), k_cache.stride(0), k_cache.stride(1), k_cache.stride(2),
        v_cache.stride(0), v_cache.stride(1), v_cache.stride(2),
        block_table.stride(0), out.stride(0), out.stride(1), block_table.shape[1] * page, qk_scale,
        GROUP=group, GP=max(16, triton.next_power_of_2(group)), PAGE=page, D=head_dim,
        DP=max(16, triton.next_power_of_2(head_dim)), BLOCK_N=block_n, num_warps=4, num_stages=2)
    return out


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self._block_n = {}  # shape/dtype key -> tuned BLOCK_N

    def _tuned_block_n(self, args):
        key = tuple((tuple(t.shape), t.dtype) for t in args) + (str(args[0].device),)
        choice = self._block_n.get(key)
        if choice is None:
            times = {}
            for block_n in _CANDIDATES:
                _decode(*args, block_n)  # compile and warm up
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                start.record()
                for _ in range(3):
                    _decode(*args, block_n)
                end.record()
                end.synchronize()
                times[block_n] = start.elapsed_time(end)
            choice = self._block_n[key] = min(times, key=times.get)
        return choice

    def forward(self, q, k_cache, v_cache, block_table, seq_lens):
        if q.numel() == 0:
            return torch.empty(q.shape, device=q.device, dtype=q.dtype)
        # innermost dims contiguous (copies only for strided callers)
        args = (q.contiguous(), k_cache.contiguous(), v_cache.contiguous(),
                block_table.contiguous(), seq_lens.contiguous())
        return _decode(*args, self._tuned_block_n(args))
