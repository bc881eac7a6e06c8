# precision-lowered: an fp8 problem whose Triton kernel converts the fp8
# operands to bf16 before tl.dot, and a wrapper that upcasts an input.
# kaudit-test: problem=../../problems/p10_fp8_scaled_gemm
import torch
import triton
import triton.language as tl


@triton.jit
def _gemm_kernel(x_ptr, w_ptr, xs_ptr, ws_ptr, out_ptr, M, N, K,
                 BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(x_ptr + rm[:, None] * K + (k + rk)[None, :]).to(tl.bfloat16)  # expect: precision-lowered
        b = tl.load(w_ptr + rn[None, :] * K + (k + rk)[:, None])
        b16 = tl.cast(b, tl.float16)  # expect: precision-lowered
        acc += tl.dot(a, b16)
        # Converting the accumulator for the epilogue is not an input upcast.
        partial = acc.to(tl.float32)
    xs = tl.load(xs_ptr + rm)
    ws = tl.load(ws_ptr + rn)
    out = (acc * xs[:, None] * ws[None, :]).to(tl.bfloat16)
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], out)


@triton.jit
def _gemm_inline_kernel(x_ptr, w_ptr, out_ptr, K, BK: tl.constexpr):
    rk = tl.arange(0, BK)
    acc = tl.dot(tl.load(x_ptr + rk).to(tl.float16), tl.load(w_ptr + rk))  # expect: precision-lowered
    tl.store(out_ptr + rk, acc.to(tl.bfloat16))


class Model(torch.nn.Module):
    def forward(self, x, w, x_scale, w_scale):
        M, K = x.shape
        N = w.shape[0]
        w16 = w.to(torch.bfloat16)  # expect: precision-lowered
        xs = x_scale.float()  # scales are fp32 by design: not reported
        out = torch.empty(M, N, device=x.device, dtype=torch.bfloat16)
        grid = (triton.cdiv(M, 128), triton.cdiv(N, 128))
        _gemm_kernel[grid](x, w16, xs, w_scale, out, M, N, K, BM=128, BN=128, BK=64)
        return out.float().to(torch.bfloat16)
