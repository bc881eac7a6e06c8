"""fp8 e4m3 x fp8 e4m3 GEMM with per-row / per-channel scales, bf16 out.

Reference only: it upcasts to fp32 and lets PyTorch do the product, which is
exact for e4m3 operands and fp32-accumulated. Submissions may not do that.
"""
import torch

M = 4096
N = 4096
K = 4096


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, w, x_scale, w_scale):
        # x: (M, K) e4m3, w: (N, K) e4m3, x_scale: (M, 1) fp32, w_scale: (N,) fp32
        acc = torch.matmul(x.to(torch.float32), w.to(torch.float32).t())
        return (acc * x_scale * w_scale.unsqueeze(0)).to(torch.bfloat16)


def get_inputs():
    x = torch.randn(M, K, device="cuda").clamp_(-8, 8).to(torch.float8_e4m3fn)
    w = torch.randn(N, K, device="cuda").clamp_(-8, 8).to(torch.float8_e4m3fn)
    # Scales keep the output near unit size: sum of K unit products ~ sqrt(K).
    x_scale = (torch.rand(M, 1, device="cuda") + 0.5) / K ** 0.25
    w_scale = (torch.rand(N, device="cuda") + 0.5) / K ** 0.25
    return [x, w, x_scale, w_scale]


def get_init_inputs():
    return []
