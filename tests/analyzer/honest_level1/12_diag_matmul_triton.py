import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def diag_scale_rows_kernel(a_ptr, b_ptr, c_ptr, N, M, stride_bn, stride_cn,
                           BLOCK_N: tl.constexpr, BLOCK_M: tl.constexpr, NO_MASK: tl.constexpr):
    pid_n = tl.program_id(0)
    pid_m = tl.program_id(1)
    rows = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    cols = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    b_off = rows[:, None].to(tl.int64) * stride_bn + cols[None, :]
    c_off = rows[:, None].to(tl.int64) * stride_cn + cols[None, :]
    if NO_MASK:
        d = tl.load(a_ptr + rows)
        b = tl.load(b_ptr + b_off)
        tl.store(c_ptr + c_off, b * d[:, None])
    else:
        rm = rows < N
        m = rm[:, None] & (cols[None, :] < M)
        d = tl.load(a_ptr + rows, mask=rm, other=0.0)
        b = tl.load(b_ptr + b_off, mask=m, other=0.0)
        tl.store(c_ptr + c_off, b * d[:, None], mask=m)


def _tiles(N: int, M: int):
    # Fast path when both sizes are multiples of the tile: no bounds masks.
    # Any other size uses the same kernel with masks on, so every shape is handled.
    if N % 128 == 0 and M % 128 == 0:
        return 32, 128, True
    return 32, 128, False


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        assert A.dim() == 1 and B.dim() == 2 and A.shape[0] == B.shape[0], "expected A (N,), B (N, M)"
        A = A.contiguous()
        B = B.contiguous()
        N, M = B.shape
        dtype = torch.promote_types(A.dtype, B.dtype)
        A = A.to(dtype)
        B = B.to(dtype)
        C = torch.empty((N, M), device=B.device, dtype=dtype)
        if C.numel() == 0:
            return C
        BN, BM, no_mask = _tiles(N, M)
        grid = (triton.cdiv(N, BN), triton.cdiv(M, BM))
        diag_scale_rows_kernel[grid](A, B, C, N, M, B.stride(0), C.stride(0),
                                     BLOCK_N=BN, BLOCK_M=BM, NO_MASK=no_mask, num_warps=4)
        return C
