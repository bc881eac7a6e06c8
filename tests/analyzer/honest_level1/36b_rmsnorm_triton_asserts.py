import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rmsnorm_c_kernel(x_ptr, y_ptr, C, S, eps, BLOCK_C: tl.constexpr, BLOCK_S: tl.constexpr):
    # x viewed as (B, C, S); one program handles BLOCK_S spatial positions of one batch item
    # and the whole channel axis (C <= BLOCK_C).
    b = tl.program_id(0).to(tl.int64)
    s = tl.program_id(1) * BLOCK_S + tl.arange(0, BLOCK_S)
    c = tl.arange(0, BLOCK_C)
    m = (c[:, None] < C) & (s[None, :] < S)
    off = b * C * S + c[:, None].to(tl.int64) * S + s[None, :]
    x = tl.load(x_ptr + off, mask=m, other=0.0).to(tl.float32)
    ms = tl.sum(x * x, axis=0) / C
    inv = 1.0 / tl.sqrt(ms + eps)
    tl.store(y_ptr + off, (x * inv[None, :]).to(y_ptr.dtype.element_ty), mask=m)


class ModelNew(nn.Module):
    MAX_C = 1024  # one program keeps the whole channel column in registers

    def __init__(self, num_features: int, eps: float = 1e-5):
        super().__init__()
        self.num_features = num_features
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        assert x.dim() >= 2, "expected (B, C, ...)"
        assert x.shape[1] == self.num_features, f"expected {self.num_features} channels, got {x.shape[1]}"
        assert x.shape[1] <= self.MAX_C, "channel count too large for the single-pass kernel"
        x = x.contiguous()
        B, C = x.shape[0], x.shape[1]
        S = x.numel() // max(B * C, 1)
        y = torch.empty_like(x)
        if x.numel() == 0:
            return y
        BLOCK_C = triton.next_power_of_2(C)
        BLOCK_S = max(16, min(256, 8192 // BLOCK_C))
        grid = (B, triton.cdiv(S, BLOCK_S))
        rmsnorm_c_kernel[grid](x, y, C, S, self.eps, BLOCK_C=BLOCK_C, BLOCK_S=BLOCK_S, num_warps=8)
        return y
