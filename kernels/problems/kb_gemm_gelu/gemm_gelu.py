# KernelBench layout (one file: Model, get_inputs, get_init_inputs; no
# forbidden list): an fp16 GEMM followed by the exact (erf) GELU. At
# 4096x4096x4096 the product is nearly all of the work; the GELU is one
# elementwise pass over the output.
import torch

M = 4096
K = 4096
N = 4096


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, w):
        # x: (M, K) fp16, w: (K, N) fp16 -> (M, N) fp16
        return torch.nn.functional.gelu(x @ w)


def get_inputs():
    x = torch.randn(M, K, device="cuda", dtype=torch.float16)
    # w scaled by 1/sqrt(K): the product's entries are about unit size, where
    # the GELU is neither zero nor the identity.
    w = (torch.randn(K, N, device="cuda") / K ** 0.5).to(torch.float16)
    return [x, w]


def get_init_inputs():
    return []
