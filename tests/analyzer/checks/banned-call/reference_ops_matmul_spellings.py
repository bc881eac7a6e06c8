# banned-call on a KernelBench problem whose reference spells its product
# `x @ w` (kernels/problems/kb_gemm_gelu): the same product under any other
# spelling (torch.matmul, torch.mm, x.matmul, the operator itself) is the
# reference's own op around a fig-leaf kernel, a lead (medium) for the trace
# to settle, never a high finding (ReferenceOps.EveryMatmulSpellingIsALead).
# kaudit-test: problem=../../../../kernels/problems/kb_gemm_gelu
import torch
import triton
import triton.language as tl


@triton.jit
def _gelu(y_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    v = tl.load(y_ptr + offs, mask=m).to(tl.float32)
    tl.store(o_ptr + offs, (0.5 * v * (1.0 + tl.math.erf(v * 0.7071067811865476))).to(tl.float16), mask=m)


def _act(y):
    out = torch.empty_like(y)
    _gelu[(triton.cdiv(y.numel(), 1024),)](y, out, y.numel(), BLOCK=1024)
    return out


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, w):
        if x.shape[0] == 1:
            return _act(x.matmul(w))  # expect: banned-call
        if x.shape[0] == 2:
            return _act(torch.mm(x, w))  # expect: banned-call
        if x.shape[0] == 3:
            return _act(x @ w)  # expect: banned-call
        return _act(torch.matmul(x, w))  # expect: banned-call
