"""W4A16 GEMM: dequantise a (BN x 128) weight tile in registers and tl.dot.

get_inputs/get_init_inputs delegate to reference.py so the local timing
script can build inputs for whichever shape the reference module is set to.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BM": 16, "BN": 128}, num_warps=4),
                          triton.Config({"BM": 32, "BN": 128}, num_warps=4),
                          triton.Config({"BM": 64, "BN": 128}, num_warps=8),
                          triton.Config({"BM": 128, "BN": 64}, num_warps=8)],
                 key=["M", "N", "K"])
@triton.jit
def _dequant_dot(x_ptr, q_ptr, s_ptr, z_ptr, y_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    groups = K // 128
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for g in range(0, groups):
        rk = g * 128 + tl.arange(0, 128)
        xv = tl.load(x_ptr + rm[:, None] * K + rk[None, :], mask=rm[:, None] < M, other=0.0)
        byte = tl.load(q_ptr + rn[None, :] * (K // 2) + rk[:, None] // 2, mask=rn[None, :] < N, other=0)
        nib = tl.where(rk[:, None] % 2 == 0, byte & 0xF, byte >> 4).to(tl.float32)
        sc = tl.load(s_ptr + rn * groups + g, mask=rn < N, other=0.0).to(tl.float32)
        zp = tl.load(z_ptr + rn * groups + g, mask=rn < N, other=0.0).to(tl.float32)
        acc = tl.dot(xv, ((nib - zp[None, :]) * sc[None, :]).to(tl.bfloat16), acc)
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.bfloat16), mask=(rm[:, None] < M) & (rn[None, :] < N))


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, qweight, scales, zeros):
        m, k = x.shape
        n = qweight.shape[0]
        y = torch.empty(m, n, device=x.device, dtype=torch.bfloat16)
        grid = lambda meta: (triton.cdiv(m, meta["BM"]), triton.cdiv(n, meta["BN"]))
        _dequant_dot[grid](x, qweight, scales, zeros, y, m, n, k)
        return y


def get_inputs():
    import reference as ref

    return ref.get_inputs()


def get_init_inputs():
    import reference as ref

    return ref.get_init_inputs()
