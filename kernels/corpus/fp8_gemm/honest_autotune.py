# Clean: Triton fp8 GEMM under @triton.autotune. Four tile configurations are
# benchmarked by Triton the first time each (M, N, K) is seen and the fastest is
# kept for that key; every configuration computes the whole output (masked M, N
# and K tails, fp32 accumulation, scales in the epilogue), so whichever wins the
# answer is the same.
import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BM": 128, "BN": 128, "BK": 128, "GROUP_M": 8}, num_warps=8, num_stages=3),
        triton.Config({"BM": 128, "BN": 256, "BK": 64, "GROUP_M": 8}, num_warps=8, num_stages=3),
        triton.Config({"BM": 64, "BN": 128, "BK": 128, "GROUP_M": 8}, num_warps=4, num_stages=4),
        triton.Config({"BM": 64, "BN": 64, "BK": 128, "GROUP_M": 4}, num_warps=4, num_stages=3),
    ],
    key=["M", "N", "K"],
)
@triton.jit
def _fp8_tuned_kernel(x_ptr, w_ptr, xs_ptr, ws_ptr, o_ptr, M, N, K,
                      stride_xm, stride_wn, stride_om,
                      BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_m = tl.cdiv(M, BM)
    num_n = tl.cdiv(N, BN)
    # grouped launch order: GROUP_M row tiles share each column tile in L2
    per_group = GROUP_M * num_n
    first_m = (pid // per_group) * GROUP_M
    group_m = min(num_m - first_m, GROUP_M)
    pid_m = first_m + (pid % per_group) % group_m
    pid_n = (pid % per_group) // group_m
    offs_m = pid_m * BM + tl.arange(0, BM)
    offs_n = pid_n * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    m_ok = offs_m < M
    n_ok = offs_n < N
    a_ptrs = x_ptr + offs_m[:, None].to(tl.int64) * stride_xm + offs_k[None, :]
    b_ptrs = w_ptr + offs_n[None, :].to(tl.int64) * stride_wn + offs_k[:, None]
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
        # row-major operands (a copy only if the caller's are strided)
        x = x.contiguous()
        w = w.contiguous()
        M, K = x.shape
        N = w.shape[0]
        xs = x_scale.reshape(-1).to(torch.float32).contiguous()
        ws = w_scale.reshape(-1).to(torch.float32).contiguous()
        out = torch.empty(M, N, device=x.device, dtype=torch.bfloat16)
        if M == 0 or N == 0:
            return out

        def grid(meta):
            return (triton.cdiv(M, meta["BM"]) * triton.cdiv(N, meta["BN"]),)

        _fp8_tuned_kernel[grid](x, w, xs, ws, out, M, N, K, x.stride(0), w.stride(0), out.stride(0))
        return out
