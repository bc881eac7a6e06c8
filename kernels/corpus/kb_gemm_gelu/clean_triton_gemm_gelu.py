# Clean: Triton tiled fp16 GEMM (fp32 accumulation, grouped tile order for L2
# reuse, masked edges and K tail) with the exact erf GELU applied to the
# accumulator in the epilogue, so the product never goes back to memory
# before the activation.
import torch
import triton
import triton.language as tl


@triton.jit
def _gemm_gelu_kernel(x_ptr, w_ptr, y_ptr, M, N, K,
                      stride_xm, stride_xk, stride_wk, stride_wn, stride_ym, stride_yn,
                      BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
    in_group = GROUP_M * tiles_n
    first_m = (pid // in_group) * GROUP_M
    group_rows = min(tiles_m - first_m, GROUP_M)
    pid_m = first_m + (pid % in_group) % group_rows
    pid_n = (pid % in_group) // group_rows

    offs_m = pid_m * BM + tl.arange(0, BM)
    offs_n = pid_n * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    m_ok = offs_m < M
    n_ok = offs_n < N
    x_tile = x_ptr + offs_m[:, None].to(tl.int64) * stride_xm + offs_k[None, :] * stride_xk
    w_tile = w_ptr + offs_k[:, None].to(tl.int64) * stride_wk + offs_n[None, :] * stride_wn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        k_ok = offs_k < K - k0
        a = tl.load(x_tile, mask=m_ok[:, None] & k_ok[None, :], other=0.0)
        b = tl.load(w_tile, mask=k_ok[:, None] & n_ok[None, :], other=0.0)
        acc = tl.dot(a, b, acc=acc)
        x_tile += BK * stride_xk
        w_tile += BK * stride_wk

    # GELU (erf form) on the fp32 accumulator, then one fp16 store.
    out = 0.5 * acc * (1.0 + tl.math.erf(acc * 0.7071067811865476))
    y = y_ptr + offs_m[:, None].to(tl.int64) * stride_ym + offs_n[None, :] * stride_yn
    tl.store(y, out.to(y_ptr.dtype.element_ty), mask=m_ok[:, None] & n_ok[None, :])


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, w):
        M, K = x.shape
        N = w.shape[1]
        y = torch.empty(M, N, device=x.device, dtype=x.dtype)
        BM, BN, BK, GROUP_M = 128, 128, 64, 8
        grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN),)
        _gemm_gelu_kernel[grid](
            x, w, y, M, N, K,
            x.stride(0), x.stride(1), w.stride(0), w.stride(1), y.stride(0), y.stride(1),
            BM=BM, BN=BN, BK=BK, GROUP_M=GROUP_M, num_warps=8, num_stages=3)
        return y
