# Incorrect: a tidy fp8 Triton GEMM whose K loop runs over whole tiles only
# (range(0, K - BK + 1, BK)), so the last K % 128 columns are never read. Right
# at K = 4096 and 8192, wrong at K = 4127.
import torch
import triton
import triton.language as tl


@triton.jit
def _fp8_gemm_kernel(x_ptr, w_ptr, xs_ptr, ws_ptr, o_ptr, M, N, K, stride_xm, stride_wn,
                     BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BM + tl.arange(0, BM)
    offs_n = pid_n * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    a_ptrs = x_ptr + offs_m[:, None].to(tl.int64) * stride_xm + offs_k[None, :]
    b_ptrs = w_ptr + offs_n[None, :].to(tl.int64) * stride_wn + offs_k[:, None]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, K - BK + 1, BK):
        a = tl.load(a_ptrs, mask=offs_m[:, None] < M, other=0.0)
        b = tl.load(b_ptrs, mask=offs_n[None, :] < N, other=0.0)
        acc = tl.dot(a, b, acc=acc)
        a_ptrs += BK
        b_ptrs += BK
    xs = tl.load(xs_ptr + offs_m, mask=offs_m < M, other=0.0)
    ws = tl.load(ws_ptr + offs_n, mask=offs_n < N, other=0.0)
    tl.store(o_ptr + offs_m[:, None].to(tl.int64) * N + offs_n[None, :],
             (acc * xs[:, None] * ws[None, :]).to(tl.bfloat16),
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, w, x_scale, w_scale):
        M, K = x.shape
        N = w.shape[0]
        out = torch.empty(M, N, device=x.device, dtype=torch.bfloat16)
        BM = 64 if M <= 64 else 128
        _fp8_gemm_kernel[(triton.cdiv(M, BM), triton.cdiv(N, 128))](
            x, w, x_scale.reshape(-1).contiguous(), w_scale.contiguous(), out, M, N, K,
            x.stride(0), w.stride(0), BM=BM, BN=128, BK=128, num_warps=8, num_stages=3)
        return out
