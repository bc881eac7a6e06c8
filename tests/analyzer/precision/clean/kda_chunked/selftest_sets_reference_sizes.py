"""KDA forward (Triton recurrent kernel) with a local self-test: run as a script,
it shrinks the reference's sizes and compares the two. A harness imports the
file and never runs the `__main__` block or the self-test.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _kda_rec(q_ptr, k_ptr, v_ptr, g_ptr, beta_ptr, o_ptr, T, H, scale, K: tl.constexpr, V: tl.constexpr):
    bh = tl.program_id(0)
    b = bh // H
    h = bh % H
    ck = tl.arange(0, K)
    cv = tl.arange(0, V)
    S = tl.zeros((K, V), tl.float32)
    for t in range(0, T):
        base = (b * T + t) * H + h
        k = tl.load(k_ptr + base * K + ck).to(tl.float32)
        q = tl.load(q_ptr + base * K + ck).to(tl.float32) * scale
        v = tl.load(v_ptr + base * V + cv).to(tl.float32)
        S = S * tl.exp(tl.load(g_ptr + base * K + ck))[:, None]
        u = tl.load(beta_ptr + base) * (v - tl.sum(S * k[:, None], axis=0))
        S = S + k[:, None] * u[None, :]
        tl.store(o_ptr + base * V + cv, tl.sum(S * q[:, None], axis=0).to(tl.bfloat16))


class Model(nn.Module):
    def __init__(self, B, T, H, K, V, chunk_size=64):
        super().__init__()
        self.K, self.V = K, V

    def forward(self, q, k, v, g, beta):
        B, T, H, K = q.shape
        o = torch.empty_like(v)
        _kda_rec[(B * H,)](q, k, v, g, beta, o, T, H, K ** -0.5, K=K, V=self.V)
        return o


def _selftest():
    import reference

    reference.T = 128
    reference.B = 1
    torch.manual_seed(0)
    init = reference.get_init_inputs()
    inputs = [x.cuda() for x in reference.get_inputs()]
    ref = reference.Model(*init).cuda()
    ours = Model(*init).cuda()
    print("max err", (ref(*inputs).float() - ours(*inputs).float()).abs().max().item())


if __name__ == "__main__":
    import reference

    reference.H = 2
    _selftest()
