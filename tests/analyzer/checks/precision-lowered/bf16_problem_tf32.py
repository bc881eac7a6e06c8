# precision-lowered: the TF32 switch is reported with low confidence for a bf16
# problem, and an upcast is not reported when the problem is not fp8.
# kaudit-test: problem=../../problems/gemm_graded
# kaudit-test: ignore=monkeypatching
import torch
import triton
import triton.language as tl

torch.backends.cuda.matmul.allow_tf32 = True  # expect: precision-lowered


@triton.jit
def _bf16_kernel(a_ptr, b_ptr, c_ptr, K, BK: tl.constexpr):
    rk = tl.arange(0, BK)
    a = tl.load(a_ptr + rk).to(tl.float32)
    c = tl.dot(a, tl.load(b_ptr + rk), allow_tf32=True)
    tl.store(c_ptr + rk, c.to(tl.bfloat16))


class ModelNew(torch.nn.Module):
    def forward(self, a, b):
        c = torch.empty_like(a)
        _bf16_kernel[(1,)](a.float(), b, c, a.shape[1], BK=64)
        return c
