"""W4A16 GEMM: bf16 activations times group-128 asymmetric int4 weights.

The reference unpacks and dequantises the whole weight to fp32 and multiplies
in fp32 with PyTorch.
"""
import torch

M = 1
N = 12288
K = 4096
GROUP = 128


def unpack_int4(qweight):
    """(N, K/2) uint8 -> (N, K) int values 0..15, the even k in the low nibble."""
    low = qweight & 0x0F
    high = qweight >> 4
    return torch.stack([low, high], dim=-1).reshape(qweight.shape[0], -1)


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, qweight, scales, zeros):
        q = unpack_int4(qweight).float()
        n, k = q.shape
        g = q.reshape(n, k // GROUP, GROUP)
        w = ((g - zeros.float().unsqueeze(-1)) * scales.float().unsqueeze(-1)).reshape(n, k)
        return torch.matmul(x.float(), w.t()).to(torch.bfloat16)


def get_inputs():
    x = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
    qweight = torch.randint(0, 256, (N, K // 2), device="cuda", dtype=torch.uint8)
    # Scales sized so that y is of order one; integer zero points near the middle.
    scales = ((torch.rand(N, K // GROUP, device="cuda") + 0.5) * (0.25 / K ** 0.5)).to(torch.bfloat16)
    zeros = torch.randint(6, 10, (N, K // GROUP), device="cuda").to(torch.bfloat16)
    return [x, qweight, scales, zeros]


def get_init_inputs():
    return []
