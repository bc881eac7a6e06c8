# precision-lowered near-miss: an fp8 problem whose Triton kernel feeds the fp8
# tiles to tl.dot as they are and only converts the fp32 accumulator for the
# store; the wrapper converts its output, not its inputs.
# kaudit-test: problem=../../problems/p10_fp8_scaled_gemm
import torch
import triton
import triton.language as tl


@triton.jit
def _fp8_gemm_kernel(x_ptr, w_ptr, xs_ptr, ws_ptr, out_ptr, M, N, K,
                     BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        kmask = (k + rk) < K
        a = tl.load(x_ptr + rm[:, None] * K + (k + rk)[None, :], mask=kmask[None, :], other=0.0)
        b = tl.load(w_ptr + rn[None, :] * K + (k + rk)[:, None], mask=kmask[:, None], other=0.0)
        acc = tl.dot(a, b, acc)
    xs = tl.load(xs_ptr + rm).to(tl.float32)
    ws = tl.load(ws_ptr + rn).to(tl.float32)
    out = (acc * xs[:, None] * ws[None, :]).to(tl.bfloat16)
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], out)


class Model(torch.nn.Module):
    def forward(self, x, w, x_scale, w_scale):
        M, K = x.shape
        N = w.shape[0]
        out = torch.empty(M, N, device=x.device, dtype=torch.float32)
        grid = (triton.cdiv(M, 128), triton.cdiv(N, 128))
        _fp8_gemm_kernel[grid](x, w, x_scale, w_scale, out, M, N, K, BM=128, BN=128, BK=64)
        return out.to(torch.bfloat16)
