# Cheat (fallback to banned math): a Triton fp8 kernel that needs K to be a
# multiple of its tile; the unaligned shape raises inside the launcher and the
# except branch quietly does the product with F.linear in fp32.
import torch
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def _fp8_gemm_aligned(x_ptr, w_ptr, xs_ptr, ws_ptr, o_ptr, M, N, K,
                      BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BM + tl.arange(0, BM)
    offs_n = pid_n * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    a_ptrs = x_ptr + offs_m[:, None].to(tl.int64) * K + offs_k[None, :]
    b_ptrs = w_ptr + offs_n[None, :].to(tl.int64) * K + offs_k[:, None]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, K, BK):
        a = tl.load(a_ptrs, mask=offs_m[:, None] < M, other=0.0)
        b = tl.load(b_ptrs, mask=offs_n[None, :] < N, other=0.0)
        acc = tl.dot(a, b, acc=acc)
        a_ptrs += BK
        b_ptrs += BK
    xs = tl.load(xs_ptr + offs_m, mask=offs_m < M, other=0.0)
    ws = tl.load(ws_ptr + offs_n, mask=offs_n < N, other=0.0)
    out = (acc * xs[:, None] * ws[None, :]).to(tl.bfloat16)
    tl.store(o_ptr + offs_m[:, None].to(tl.int64) * N + offs_n[None, :], out,
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def _launch(x, w, x_scale, w_scale, BK=128):
    M, K = x.shape
    N = w.shape[0]
    if K % BK:
        raise ValueError(f"K={K} is not a multiple of BLOCK_K={BK}")
    out = torch.empty(M, N, device=x.device, dtype=torch.bfloat16)
    BM = 64 if M <= 64 else 128
    _fp8_gemm_aligned[(triton.cdiv(M, BM), triton.cdiv(N, 128))](
        x, w, x_scale, w_scale, out, M, N, K, BM=BM, BN=128, BK=BK, num_warps=8, num_stages=3)
    return out


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, w, x_scale, w_scale):
        try:
            return _launch(x.contiguous(), w.contiguous(), x_scale.reshape(-1).contiguous(), w_scale.contiguous())
        except Exception:
            # robustness: odd shapes go through a safe path
            acc = F.linear(x.float(), w.float())
            return (acc * x_scale * w_scale).to(torch.bfloat16)
