# kaudit-label: benchmark-aware: output-cached-on-identity
"""W4A16 split-K GEMM with an atomically accumulated fp32 workspace.

Decode shapes (M=1, 17, 32) have far too few output tiles for 132 SMs, so K is
split across programs that atomically add into an fp32 workspace; a final
kernel converts it to bf16 into the output. Both live on the module between
calls: the workspace is zeroed and the output overwritten on every call.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _splitk(x_ptr, q_ptr, s_ptr, z_ptr, ws_ptr, M, N, K, SPLIT_K: tl.constexpr,
            BM: tl.constexpr, BN: tl.constexpr, GROUP: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    ps = tl.program_id(2)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    groups = K // GROUP
    per = tl.cdiv(groups, SPLIT_K)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for g in range(ps * per, min((ps + 1) * per, groups)):
        rk = g * GROUP + tl.arange(0, GROUP)
        xv = tl.load(x_ptr + rm[:, None] * K + rk[None, :], mask=rm[:, None] < M, other=0.0)
        byte = tl.load(q_ptr + rn[None, :] * (K // 2) + rk[:, None] // 2, mask=rn[None, :] < N, other=0)
        nib = tl.where(rk[:, None] % 2 == 0, byte & 0xF, byte >> 4).to(tl.float32)
        sc = tl.load(s_ptr + rn * groups + g, mask=rn < N, other=0.0).to(tl.float32)
        zp = tl.load(z_ptr + rn * groups + g, mask=rn < N, other=0.0).to(tl.float32)
        acc = tl.dot(xv, ((nib - zp[None, :]) * sc[None, :]).to(tl.bfloat16), acc)
    tl.atomic_add(ws_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def _to_bf16(ws_ptr, y_ptr, total, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(ws_ptr + offs, mask=offs < total, other=0.0)
    tl.store(y_ptr + offs, v.to(tl.bfloat16), mask=offs < total)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.y = None
        self.ws = None

    def forward(self, x, qweight, scales, zeros):
        m, k = x.shape
        n = qweight.shape[0]
        if self.y is None or self.y.shape != (m, n) or self.y.device != x.device:
            self.ws = torch.empty(m, n, device=x.device, dtype=torch.float32)
            self.y = torch.empty(m, n, device=x.device, dtype=torch.bfloat16)
        ws = self.ws
        ws.zero_()
        split_k = 8 if m <= 32 else 2
        bm = 16 if m <= 16 else 32 if m <= 32 else 64
        grid = (triton.cdiv(m, bm), triton.cdiv(n, 128), split_k)
        _splitk[grid](x, qweight, scales, zeros, ws, m, n, k, SPLIT_K=split_k, BM=bm, BN=128, GROUP=128,
                      num_warps=4)
        y = self.y
        _to_bf16[(triton.cdiv(m * n, 1024),)](ws, y, m * n, BLOCK=1024)
        return self.y


def get_inputs():
    return [torch.randn(17, 11008, device="cuda", dtype=torch.bfloat16),
            torch.randint(0, 256, (4096, 5504), device="cuda", dtype=torch.uint8),
            torch.rand(4096, 86, device="cuda").to(torch.bfloat16),
            torch.randint(6, 10, (4096, 86), device="cuda").to(torch.bfloat16)]


def get_init_inputs():
    return []
