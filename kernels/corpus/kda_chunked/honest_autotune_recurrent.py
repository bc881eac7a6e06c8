# Clean: recurrent Kimi Delta Attention in Triton under @triton.autotune. Each
# program keeps a (K x BV) slice of one head's fp32 state and walks the
# sequence token by token (decay, delta-rule update, read-out); Triton times
# the BV / num_warps candidates on the first call for each (T, K, V) and keeps
# the fastest. Head sizes need not be powers of two: K and V are padded to the
# next power of two inside the kernel and masked.
import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BV": 16}, num_warps=2),
        triton.Config({"BV": 32}, num_warps=4),
        triton.Config({"BV": 64}, num_warps=4),
        triton.Config({"BV": 64}, num_warps=8),
    ],
    key=["T", "K", "V"],
)
@triton.jit
def _kda_step_kernel(q_ptr, k_ptr, v_ptr, g_ptr, beta_ptr, o_ptr, T, H, K, V, scale,
                     KP: tl.constexpr, BV: tl.constexpr):
    i_v = tl.program_id(0)
    i_bh = tl.program_id(1)
    b = i_bh // H
    h = i_bh % H
    ok = tl.arange(0, KP)
    ov = i_v * BV + tl.arange(0, BV)
    k_ok = ok < K
    v_ok = ov < V
    # (B, T, H, *) contiguous: token t of head h starts at ((b * T + t) * H + h) * width
    row0 = b.to(tl.int64) * T * H + h
    p_q = q_ptr + row0 * K + ok
    p_k = k_ptr + row0 * K + ok
    p_g = g_ptr + row0 * K + ok
    p_v = v_ptr + row0 * V + ov
    p_o = o_ptr + row0 * V + ov
    p_beta = beta_ptr + row0
    S = tl.zeros([KP, BV], dtype=tl.float32)
    for _ in range(T):
        q = tl.load(p_q, mask=k_ok, other=0.0).to(tl.float32) * scale
        k = tl.load(p_k, mask=k_ok, other=0.0).to(tl.float32)
        g = tl.load(p_g, mask=k_ok, other=0.0).to(tl.float32)
        v = tl.load(p_v, mask=v_ok, other=0.0).to(tl.float32)
        beta = tl.load(p_beta).to(tl.float32)
        S = S * tl.exp(g)[:, None]
        u = beta * (v - tl.sum(S * k[:, None], axis=0))
        S = S + k[:, None] * u[None, :]
        o = tl.sum(S * q[:, None], axis=0)
        tl.store(p_o, o.to(p_o.dtype.element_ty), mask=v_ok)
        p_q += H * K
        p_k += H * K
        p_g += H * K
        p_v += H * V
        p_o += H * V
        p_beta += H


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q, k, v, g, beta):
        q, k, v, g, beta = (t.contiguous() for t in (q, k, v, g, beta))
        B, T, H, K = q.shape
        V = v.shape[-1]
        o = torch.empty(B, T, H, V, device=v.device, dtype=v.dtype)
        if o.numel() == 0:
            return o

        def grid(meta):
            return (triton.cdiv(V, meta["BV"]), B * H)

        _kda_step_kernel[grid](q, k, v, g, beta, o, T, H, K, V, K ** -0.5,
                               KP=triton.next_power_of_2(K))
        return o
