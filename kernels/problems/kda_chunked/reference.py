"""Kimi Delta Attention forward, chunked (chunk 64).

Within a chunk with start state S0 and cumulative log decay G_r = g_1 + .. + g_r
(per key channel), the corrected values u_r = beta_r (v_r - S_{r-1}'^T k_r)
satisfy (I + diag(beta) A) U = diag(beta) (V - (K * exp(G)) S0) with
A[r, i] = sum_c k_r[c] k_i[c] exp(G_r[c] - G_i[c]) for i < r, and then
O = (Q * exp(G)) S0 + (M restricted to i <= r) U with
M[r, i] = sum_c q_r[c] k_i[c] exp(G_r[c] - G_i[c]),
S_end = exp(G_C) * S0 + sum_i (k_i * exp(G_C - G_i)) u_i^T.
Decay differences are formed before exponentiating (never exp(-G)), so the
reference stays finite for any decay. Everything is fp32.
"""
import torch
import torch.nn.functional as F

B = 2
T = 4096
H = 16
K = 128
V = 128
CHUNK = 64


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q, k, v, g, beta):
        # q, k: (B, T, H, K) bf16; v: (B, T, H, V) bf16; g: (B, T, H, K) fp32; beta: (B, T, H) fp32
        b, t, h, dk = q.shape
        dv = v.shape[-1]
        c = CHUNK
        n = (t + c - 1) // c
        pad = n * c - t
        # Padded tokens have g = 0 and beta = 0: they leave the state alone.
        qf = F.pad(q.float() * dk ** -0.5, (0, 0, 0, 0, 0, pad)).transpose(1, 2).reshape(b, h, n, c, dk)
        kf = F.pad(k.float(), (0, 0, 0, 0, 0, pad)).transpose(1, 2).reshape(b, h, n, c, dk)
        vf = F.pad(v.float(), (0, 0, 0, 0, 0, pad)).transpose(1, 2).reshape(b, h, n, c, dv)
        gf = F.pad(g.float(), (0, 0, 0, 0, 0, pad)).transpose(1, 2).reshape(b, h, n, c, dk)
        bf = F.pad(beta.float(), (0, 0, 0, pad)).transpose(1, 2).reshape(b, h, n, c)
        strict = torch.tril(torch.ones(c, c, dtype=torch.bool, device=q.device), -1)
        incl = torch.tril(torch.ones(c, c, dtype=torch.bool, device=q.device))
        eye = torch.eye(c, device=q.device)
        S = torch.zeros(b, h, dk, dv, device=q.device, dtype=torch.float32)
        out = torch.empty(b, h, n, c, dv, device=q.device, dtype=torch.float32)
        for i in range(n):
            qi, ki, vi, bi = qf[:, :, i], kf[:, :, i], vf[:, :, i], bf[:, :, i]
            G = gf[:, :, i].cumsum(dim=2)  # (b, h, c, dk)
            diff = G.unsqueeze(3) - G.unsqueeze(2)  # (b, h, r, i, dk): G_r - G_i
            decay = torch.exp(diff.masked_fill(~incl[:, :, None], float("-inf")))
            A = torch.einsum("bhrc,bhic,bhric->bhri", ki, ki, decay).masked_fill(~strict, 0.0)
            Mqk = torch.einsum("bhrc,bhic,bhric->bhri", qi, ki, decay)
            eG = torch.exp(G)
            rhs = bi.unsqueeze(-1) * (vi - torch.einsum("bhrc,bhcv->bhrv", ki * eG, S))
            lhs = eye + bi.unsqueeze(-1) * A
            U = torch.linalg.solve_triangular(lhs, rhs, upper=False, unitriangular=True)
            out[:, :, i] = torch.einsum("bhrc,bhcv->bhrv", qi * eG, S) + torch.einsum("bhri,bhiv->bhrv", Mqk, U)
            last = G[:, :, -1:, :]  # (b, h, 1, dk)
            S = torch.exp(last).transpose(2, 3) * S + torch.einsum(
                "bhic,bhiv->bhcv", ki * torch.exp(last - G), U)
        o = out.reshape(b, h, n * c, dv)[:, :, :t].transpose(1, 2)
        return o.to(v.dtype).contiguous()


def get_inputs():
    q = F.normalize(torch.randn(B, T, H, K, device="cuda"), dim=-1).to(torch.bfloat16)
    k = F.normalize(torch.randn(B, T, H, K, device="cuda"), dim=-1).to(torch.bfloat16)
    v = torch.randn(B, T, H, V, device="cuda").to(torch.bfloat16)
    # Log decays mostly in [-0.3, 0), a per-channel forget gate as KDA produces.
    g = F.logsigmoid(torch.randn(B, T, H, K, device="cuda") + 3.0) * 2.0
    beta = torch.sigmoid(torch.randn(B, T, H, device="cuda"))
    return [q, k, v, g, beta]


def get_init_inputs():
    return []
