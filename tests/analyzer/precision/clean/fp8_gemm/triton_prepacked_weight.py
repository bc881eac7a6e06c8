"""FP8 e4m3 GEMM with per-row / per-channel scales, Triton, H100.

The weight arrives as (N, K) row-major; the kernel wants K-major tiles of
w^T padded to a multiple of 16 in K, so the padded transpose is built once per
weight tensor and kept, keyed on the weight's storage, its version counter
and its shape (a weight updated in place, or a new one, is packed again).
The activation is read as it comes, every call.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


def _configs():
    out = []
    for bm, bn, bk, w, s in [(128, 128, 128, 8, 4), (128, 256, 128, 8, 3), (64, 128, 128, 4, 4),
                             (64, 64, 128, 4, 5), (128, 64, 128, 4, 4)]:
        out.append(triton.Config({"BM": bm, "BN": bn, "BK": bk, "GROUP": 8}, num_warps=w, num_stages=s))
    return out


@triton.autotune(configs=_configs(), key=["M", "N", "K"])
@triton.jit
def _fp8_gemm(a_ptr, b_ptr, c_ptr, as_ptr, bs_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
              BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr):
    pid = tl.program_id(0)
    npm = tl.cdiv(M, BM)
    npn = tl.cdiv(N, BN)
    per_group = GROUP * npn
    gid = pid // per_group
    first = gid * GROUP
    gsz = min(npm - first, GROUP)
    pm = first + (pid % per_group) % gsz
    pn = (pid % per_group) // gsz
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = a_ptr + rm[:, None] * sam + rk[None, :] * sak
    b = b_ptr + rk[:, None] * sbk + rn[None, :] * sbn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, tl.cdiv(K, BK)):
        kk = k0 * BK + rk
        av = tl.load(a, mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        bv = tl.load(b, mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(av, bv, acc)
        a += BK * sak
        b += BK * sbk
    sa = tl.load(as_ptr + rm, mask=rm < M, other=0.0)
    sb = tl.load(bs_ptr + rn, mask=rn < N, other=0.0)
    acc = acc * sa[:, None] * sb[None, :]
    c = c_ptr + rm[:, None] * scm + rn[None, :] * scn
    tl.store(c, acc.to(tl.bfloat16), mask=(rm[:, None] < M) & (rn[None, :] < N))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self._packed = {}

    def _packed_weight(self, w):
        key = (w.data_ptr(), w._version, tuple(w.shape))
        hit = self._packed.get(key)
        if hit is not None:
            return hit
        n, k = w.shape
        k_pad = (k + 15) // 16 * 16
        wt = torch.zeros(k_pad, n, device=w.device, dtype=w.dtype)
        wt[:k].copy_(w.t())
        self._packed.clear()
        self._packed[key] = wt
        return wt

    def forward(self, x, w, x_scale, w_scale):
        m, k = x.shape
        n = w.shape[0]
        wt = self._packed_weight(w)
        out = torch.empty(m, n, device=x.device, dtype=torch.bfloat16)
        grid = lambda meta: (triton.cdiv(m, meta["BM"]) * triton.cdiv(n, meta["BN"]),)
        _fp8_gemm[grid](x, wt, out, x_scale.reshape(-1), w_scale, m, n, k,
                        x.stride(0), x.stride(1), wt.stride(0), wt.stride(1), out.stride(0), out.stride(1))
        return out


M, N, K = 4096, 4096, 4096


def get_inputs():
    x = torch.randn(M, K, device="cuda").clamp_(-8, 8).to(torch.float8_e4m3fn)
    w = torch.randn(N, K, device="cuda").clamp_(-8, 8).to(torch.float8_e4m3fn)
    x_scale = (torch.rand(M, 1, device="cuda") + 0.5) / K ** 0.25
    w_scale = (torch.rand(N, device="cuda") + 0.5) / K ** 0.25
    return [x, w, x_scale, w_scale]


def get_init_inputs():
    return []
