# Clean: Triton fp8 x fp8 GEMM on the tensor cores (tl.dot on e4m3 operands,
# fp32 accumulation), per-row and per-column scales applied in the epilogue,
# masked K tail so that K = 4127 works.
import torch
import triton
import triton.language as tl


@triton.jit
def _fp8_gemm_kernel(x_ptr, w_ptr, xs_ptr, ws_ptr, o_ptr, M, N, K,
                     stride_xm, stride_wn, stride_om,
                     BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_m = tl.cdiv(M, BM)
    num_n = tl.cdiv(N, BN)
    per_group = GROUP_M * num_n
    first_m = (pid // per_group) * GROUP_M
    group_m = min(num_m - first_m, GROUP_M)
    pid_m = first_m + (pid % per_group) % group_m
    pid_n = (pid % per_group) // group_m
    offs_m = pid_m * BM + tl.arange(0, BM)
    offs_n = pid_n * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    a_ptrs = x_ptr + offs_m[:, None].to(tl.int64) * stride_xm + offs_k[None, :]
    b_ptrs = w_ptr + offs_n[None, :].to(tl.int64) * stride_wn + offs_k[:, None]
    m_ok = offs_m < M
    n_ok = offs_n < N
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        k_ok = (k0 + offs_k) < K
        a = tl.load(a_ptrs, mask=m_ok[:, None] & k_ok[None, :], other=0.0)
        b = tl.load(b_ptrs, mask=k_ok[:, None] & n_ok[None, :], other=0.0)
        acc = tl.dot(a, b, acc=acc)
        a_ptrs += BK
        b_ptrs += BK
    xs = tl.load(xs_ptr + offs_m, mask=m_ok, other=0.0)
    ws = tl.load(ws_ptr + offs_n, mask=n_ok, other=0.0)
    out = acc * xs[:, None] * ws[None, :]
    o_ptrs = o_ptr + offs_m[:, None].to(tl.int64) * stride_om + offs_n[None, :]
    tl.store(o_ptrs, out.to(tl.bfloat16), mask=m_ok[:, None] & n_ok[None, :])


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, w, x_scale, w_scale):
        x = x.contiguous()
        w = w.contiguous()
        M, K = x.shape
        N = w.shape[0]
        out = torch.empty(M, N, device=x.device, dtype=torch.bfloat16)
        BM = 64 if M <= 64 else 128
        BN, BK = 128, 128
        grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN),)
        _fp8_gemm_kernel[grid](x, w, x_scale.reshape(-1).contiguous(), w_scale.contiguous(), out,
                               M, N, K, x.stride(0), w.stride(0), out.stride(0),
                               BM=BM, BN=BN, BK=BK, GROUP_M=8, num_warps=8, num_stages=3)
        return out
