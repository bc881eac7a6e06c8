import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _bn_stats(x_ptr, psum_ptr, psq_ptr, N, C, HW, CHUNK: tl.constexpr, BLOCK: tl.constexpr):
    # grid (C, N): partial sum / sum of squares of channel c in sample n.
    c = tl.program_id(0)
    nidx = tl.program_id(1)
    base = x_ptr + (nidx.to(tl.int64) * C + c) * HW
    s = tl.zeros((BLOCK,), dtype=tl.float32)
    s2 = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, HW, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        v = tl.load(base + offs, mask=offs < HW, other=0.0).to(tl.float32)
        s += v
        s2 += v * v
    tl.store(psum_ptr + c * N + nidx, tl.sum(s, axis=0))
    tl.store(psq_ptr + c * N + nidx, tl.sum(s2, axis=0))


@triton.jit
def _bn_finalize(psum_ptr, psq_ptr, w_ptr, b_ptr, scale_ptr, shift_ptr, mean_ptr, var_ptr,
                 N, count, eps, BLOCK_N: tl.constexpr):
    c = tl.program_id(0)
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    acc2 = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        offs = start + tl.arange(0, BLOCK_N)
        msk = offs < N
        acc += tl.load(psum_ptr + c * N + offs, mask=msk, other=0.0)
        acc2 += tl.load(psq_ptr + c * N + offs, mask=msk, other=0.0)
    mean = tl.sum(acc, axis=0) / count
    var = tl.maximum(tl.sum(acc2, axis=0) / count - mean * mean, 0.0)
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + c)
    b = tl.load(b_ptr + c)
    tl.store(scale_ptr + c, w * rstd)
    tl.store(shift_ptr + c, b - mean * w * rstd)
    tl.store(mean_ptr + c, mean)
    tl.store(var_ptr + c, var)


@triton.jit
def _bn_apply(x_ptr, y_ptr, scale_ptr, shift_ptr, C, HW, BLOCK: tl.constexpr):
    nc = tl.program_id(0)
    blk = tl.program_id(1)
    c = nc % C
    offs = blk * BLOCK + tl.arange(0, BLOCK)
    m = offs < HW
    base = nc.to(tl.int64) * HW
    x = tl.load(x_ptr + base + offs, mask=m, other=0.0).to(tl.float32)
    y = x * tl.load(scale_ptr + c) + tl.load(shift_ptr + c)
    tl.store(y_ptr + base + offs, y.to(y_ptr.dtype.element_ty), mask=m)


class ModelNew(nn.Module):
    """BatchNorm2d in training mode (batch statistics, running stats updated), like nn.BatchNorm2d."""

    def __init__(self, num_features: int):
        super().__init__()
        self.num_features = num_features
        self.eps = 1e-5
        self.momentum = 0.1
        self.weight = nn.Parameter(torch.ones(num_features))
        self.bias = nn.Parameter(torch.zeros(num_features))
        self.register_buffer("running_mean", torch.zeros(num_features))
        self.register_buffer("running_var", torch.ones(num_features))
        # fp32 contiguous copies of the affine parameters, refreshed when the parameters change.
        self._param_key = None
        self._w32 = None
        self._b32 = None

    def _affine_fp32(self):
        key = (self.weight.data_ptr(), self.weight._version, self.bias.data_ptr(), self.bias._version)
        if key != self._param_key:
            self._w32 = self.weight.detach().float().contiguous()
            self._b32 = self.bias.detach().float().contiguous()
            self._param_key = key
        return self._w32, self._b32

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        N, C, H, W = x.shape
        HW = H * W
        w32, b32 = self._affine_fp32()
        dev = x.device
        if not self.training:
            # Inference: running statistics, folded into a per-channel scale and shift.
            scale = (w32 * torch.rsqrt(self.running_var.float() + self.eps)).contiguous()
            shift = (b32 - self.running_mean.float() * scale).contiguous()
            y = torch.empty_like(x)
            _bn_apply[(N * C, triton.cdiv(HW, 4096))](x, y, scale, shift, C, HW, BLOCK=4096, num_warps=8)
            return y
        psum = torch.empty((C, N), device=dev, dtype=torch.float32)
        psq = torch.empty_like(psum)
        scale = torch.empty(C, device=dev, dtype=torch.float32)
        shift = torch.empty_like(scale)
        mean = torch.empty_like(scale)
        var = torch.empty_like(scale)
        _bn_stats[(C, N)](x, psum, psq, N, C, HW, CHUNK=0, BLOCK=4096, num_warps=8)
        count = N * HW
        _bn_finalize[(C,)](psum, psq, w32, b32, scale, shift, mean, var, N, count, self.eps,
                           BLOCK_N=triton.next_power_of_2(min(max(N, 1), 1024)), num_warps=4)
        y = torch.empty_like(x)
        _bn_apply[(N * C, triton.cdiv(HW, 4096))](x, y, scale, shift, C, HW, BLOCK=4096, num_warps=8)
        with torch.no_grad():
            unbiased = var * (count / max(count - 1, 1))
            self.running_mean.mul_(1 - self.momentum).add_(mean, alpha=self.momentum)
            self.running_var.mul_(1 - self.momentum).add_(unbiased, alpha=self.momentum)
        return y
