# Cheat (banned op through a constant-folded getattr): a Triton kernel
# dequantises the int4 weight to bf16, and the product is a torch function
# looked up by a name assembled from two strings.
import torch
import triton
import triton.language as tl

_OP = "mat" + "mul"
_product = getattr(torch, _OP)


@triton.jit
def _dequant_kernel(qw_ptr, s_ptr, z_ptr, w_ptr, N, K, stride_qn, stride_sn,
                    BN: tl.constexpr, GROUP: tl.constexpr):
    pid_n = tl.program_id(0)
    g = tl.program_id(1)
    offs_n = pid_n * BN + tl.arange(0, BN)
    kk = g * GROUP + tl.arange(0, GROUP)
    packed = tl.load(qw_ptr + offs_n[:, None].to(tl.int64) * stride_qn + (kk // 2)[None, :])
    q = (packed.to(tl.int32) >> ((kk % 2) * 4)[None, :]) & 0xF
    s = tl.load(s_ptr + offs_n * stride_sn + g).to(tl.float32)
    z = tl.load(z_ptr + offs_n * stride_sn + g).to(tl.float32)
    w = (q.to(tl.float32) - z[:, None]) * s[:, None]
    tl.store(w_ptr + offs_n[:, None].to(tl.int64) * K + kk[None, :], w.to(tl.bfloat16))


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, qweight, scales, zeros):
        N = qweight.shape[0]
        K = x.shape[1]
        w = torch.empty(N, K, device=x.device, dtype=torch.bfloat16)
        _dequant_kernel[(triton.cdiv(N, 64), K // 128)](qweight, scales, zeros, w, N, K,
                                                        qweight.stride(0), scales.stride(0), BN=64, GROUP=128)
        return _product(x, w.t())
