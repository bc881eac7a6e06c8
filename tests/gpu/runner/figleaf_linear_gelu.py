# A fig leaf: its one Triton kernel adds the bias and applies gelu, while
# torch.matmul (cuBLAS) does the GEMM, nearly all of the GPU time. Correct,
# and nothing in it is forbidden; library-does-the-work must find it.
import torch
import triton
import triton.language as tl


@triton.jit
def _bias_gelu(y_ptr, b_ptr, out_ptr, n_cols, total, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < total
    y = tl.load(y_ptr + offs, mask=mask).to(tl.float32)
    b = tl.load(b_ptr + offs % n_cols, mask=mask).to(tl.float32)
    v = y + b
    out = 0.5 * v * (1.0 + tl.erf(v * 0.7071067811865476))
    tl.store(out_ptr + offs, out.to(tl.bfloat16), mask=mask)


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n, dtype=torch.bfloat16) * 0.1)

    def forward(self, x, w):
        y = torch.matmul(x, w)
        out = torch.empty_like(y)
        total = y.numel()
        _bias_gelu[(triton.cdiv(total, 4096),)](y, self.bias, out, y.shape[1], total, BLOCK=4096)
        return out
