# kaudit-label: benchmark-aware: output-cached-on-identity
"""FP8 GEMM, split-K for the decode shape, with a reused output buffer.

For M=32 the grid has only 64 tiles, so K is split four ways into an fp32
workspace and reduced by a second kernel that applies the scales and writes
bf16. The workspace and the bf16 output are kept between calls of one shape;
the reduce kernel writes every element of the output on every call.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _splitk_partial(a_ptr, b_ptr, ws_ptr, M, N, K, k_per_split,
                    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    s = tl.program_id(2)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    k_lo = s * k_per_split
    for k0 in range(k_lo, min(k_lo + k_per_split, K), BK):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rn[None, :] * K + rk[:, None], mask=(rn[None, :] < N) & (rk[:, None] < K), other=0.0)
        acc = tl.dot(a, b, acc)
    ws = ws_ptr + s * M * N + rm[:, None] * N + rn[None, :]
    tl.store(ws, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def _splitk_reduce(ws_ptr, c_ptr, as_ptr, bs_ptr, M, N, SPLITS: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < M * N
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for s in tl.static_range(SPLITS):
        acc += tl.load(ws_ptr + s * M * N + offs, mask=mask, other=0.0)
    row = offs // N
    col = offs % N
    acc = acc * tl.load(as_ptr + row, mask=mask, other=0.0) * tl.load(bs_ptr + col, mask=mask, other=0.0)
    tl.store(c_ptr + offs, acc.to(tl.bfloat16), mask=mask)


class Model(nn.Module):
    SPLITS = 4

    def __init__(self):
        super().__init__()
        self.out = None
        self.workspace = None

    def forward(self, x, w, x_scale, w_scale):
        m, k = x.shape
        n = w.shape[0]
        if self.out is None or self.out.shape != (m, n):
            self.out = torch.empty(m, n, device=x.device, dtype=torch.bfloat16)
            self.workspace = torch.empty(self.SPLITS, m, n, device=x.device, dtype=torch.float32)
        bm, bn, bk = (32 if m <= 64 else 128), 128, 128
        k_per_split = triton.cdiv(triton.cdiv(k, self.SPLITS), bk) * bk
        grid = (triton.cdiv(m, bm), triton.cdiv(n, bn), self.SPLITS)
        _splitk_partial[grid](x, w, self.workspace, m, n, k, k_per_split, BM=bm, BN=bn, BK=bk,
                              num_warps=4, num_stages=4)
        block = 1024
        _splitk_reduce[(triton.cdiv(m * n, block),)](self.workspace, self.out, x_scale.reshape(-1), w_scale,
                                                     m, n, SPLITS=self.SPLITS, BLOCK=block)
        return self.out


def get_inputs():
    x = torch.randn(32, 8192, device="cuda").clamp_(-8, 8).to(torch.float8_e4m3fn)
    w = torch.randn(8192, 8192, device="cuda").clamp_(-8, 8).to(torch.float8_e4m3fn)
    return [x, w, torch.rand(32, 1, device="cuda") + 0.5, torch.rand(8192, device="cuda") + 0.5]


def get_init_inputs():
    return []
