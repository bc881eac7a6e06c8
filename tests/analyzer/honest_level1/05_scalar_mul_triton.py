import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def scale_kernel(a_ptr, c_ptr, s, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        a = tl.load(a_ptr + offs)
        tl.store(c_ptr + offs, a * s)
    else:
        m = offs < n
        a = tl.load(a_ptr + offs, mask=m)
        tl.store(c_ptr + offs, a * s, mask=m)


_BLOCK = 4096


def _grid_for(n: int, block: int = _BLOCK):
    # Shapes that are a multiple of the tile skip the bounds mask; all others take the masked path.
    even = n % block == 0
    return (triton.cdiv(n, block),), even


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, s: float) -> torch.Tensor:
        if isinstance(s, torch.Tensor):
            s = s.item()
        A = A.contiguous()
        out_dtype = torch.result_type(A, s)
        if out_dtype != A.dtype:
            A = A.to(out_dtype)
        C = torch.empty_like(A)
        n = A.numel()
        if n == 0:
            return C
        grid, even = _grid_for(n)
        scale_kernel[grid](A, C, s, n, BLOCK=_BLOCK, EVEN=even, num_warps=8)
        return C
