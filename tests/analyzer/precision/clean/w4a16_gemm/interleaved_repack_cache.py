"""W4A16 GEMM (Triton) on a repacked int4 weight.

The given qweight packs two nibbles per byte along K. Dequantising eight
nibbles at once wants them as one int32 per (n, 8 k) in an interleaved order,
so the weight is repacked into that layout by a small Triton kernel the first
time a given weight tensor is seen, and the repacked copy is kept with the
scales fused with the zero points (scale, -zero*scale). x is read every call.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl

GROUP = 128


@triton.jit
def _repack(q_ptr, out_ptr, N, K2, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    n = offs // (K2 // 4)
    c = offs % (K2 // 4)
    mask = n < N
    b0 = tl.load(q_ptr + n * K2 + 4 * c + 0, mask=mask, other=0).to(tl.int32)
    b1 = tl.load(q_ptr + n * K2 + 4 * c + 1, mask=mask, other=0).to(tl.int32)
    b2 = tl.load(q_ptr + n * K2 + 4 * c + 2, mask=mask, other=0).to(tl.int32)
    b3 = tl.load(q_ptr + n * K2 + 4 * c + 3, mask=mask, other=0).to(tl.int32)
    word = b0 | (b1 << 8) | (b2 << 16) | (b3 << 24)
    tl.store(out_ptr + offs, word, mask=mask)


@triton.jit
def _w4_gemm(x_ptr, w_ptr, s_ptr, zs_ptr, y_ptr, M, N, K,
             BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        x = tl.load(x_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        word = tl.load(w_ptr + rn[None, :] * (K // 8) + rk[:, None] // 8, mask=rn[None, :] < N, other=0)
        nib = (word >> ((rk[:, None] % 8) * 4)) & 0xF
        g = k0 // GROUP
        s = tl.load(s_ptr + rn * (K // GROUP) + g, mask=rn < N, other=0.0)
        zs = tl.load(zs_ptr + rn * (K // GROUP) + g, mask=rn < N, other=0.0)
        w = (nib.to(tl.float32) * s[None, :] + zs[None, :]).to(tl.bfloat16)
        acc = tl.dot(x, w, acc)
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.bfloat16), mask=(rm[:, None] < M) & (rn[None, :] < N))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self._weight_cache = {}

    def _prepared(self, qweight, scales, zeros):
        key = (qweight.data_ptr(), scales.data_ptr(), zeros.data_ptr(), qweight._version, tuple(qweight.shape))
        entry = self._weight_cache.get(key)
        if entry is None:
            n, k2 = qweight.shape
            packed = torch.empty(n * (k2 // 4), device=qweight.device, dtype=torch.int32)
            block = 1024
            _repack[(triton.cdiv(packed.numel(), block),)](qweight, packed, n, k2, BLOCK=block)
            s = scales.float().contiguous()
            zs = (-zeros.float() * s).contiguous()
            entry = (packed.view(n, k2 // 4), s, zs)
            self._weight_cache = {key: entry}
        return entry

    def forward(self, x, qweight, scales, zeros):
        packed, s, zs = self._prepared(qweight, scales, zeros)
        m, k = x.shape
        n = qweight.shape[0]
        y = torch.empty(m, n, device=x.device, dtype=torch.bfloat16)
        bm = 16 if m <= 16 else (32 if m <= 32 else 64)
        grid = (triton.cdiv(m, bm), triton.cdiv(n, 128))
        _w4_gemm[grid](x, packed, s, zs, y, m, n, k, BM=bm, BN=128, BK=GROUP, GROUP=GROUP, num_warps=4,
                       num_stages=3)
        return y


def get_inputs():
    x = torch.randn(1, 4096, device="cuda", dtype=torch.bfloat16)
    qweight = torch.randint(0, 256, (12288, 2048), device="cuda", dtype=torch.uint8)
    scales = (torch.rand(12288, 32, device="cuda") * 0.01).to(torch.bfloat16)
    zeros = torch.randint(6, 10, (12288, 32), device="cuda").to(torch.bfloat16)
    return [x, qweight, scales, zeros]


def get_init_inputs():
    return []
