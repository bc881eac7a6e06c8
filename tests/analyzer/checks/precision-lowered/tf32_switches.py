# precision-lowered: TF32 and reduced-precision switches for an fp32 problem.
# kaudit-test: problem=../../problems/p10_fp32_linear_gelu_softmax
# kaudit-test: ignore=monkeypatching
import torch
import triton
import triton.language as tl
from torch.backends import cudnn

torch.backends.cuda.matmul.allow_tf32 = True  # expect: precision-lowered
cudnn.allow_tf32 = True  # expect: precision-lowered
torch.set_float32_matmul_precision("high")  # expect: precision-lowered
torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = True  # expect: precision-lowered
setattr(torch.backends.cuda.matmul, "allow_bf16_reduced_precision_reduction", True)  # expect: precision-lowered
torch.backends.cuda.matmul.fp32_precision = "tf32"  # expect: precision-lowered
# Turning the switches off, or asking for full precision, is fine.
torch.backends.cudnn.allow_tf32 = False
torch.set_float32_matmul_precision("highest")


@triton.jit
def _linear_kernel(x_ptr, w_ptr, b_ptr, y_ptr, M, N, K,
                   BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(x_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(w_ptr + rn[None, :] * K + (k + rk)[:, None])
        acc += tl.dot(a, b, input_precision="tf32")  # expect: precision-lowered
        acc += tl.dot(a, b, allow_tf32=True)  # expect: precision-lowered
        acc += tl.dot(a, b, input_precision="ieee")
    acc += tl.load(b_ptr + rn)[None, :]
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], acc)


class Model(torch.nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(out_features, in_features))
        self.bias = torch.nn.Parameter(torch.zeros(out_features))

    def forward(self, x):
        M, K = x.shape
        N = self.weight.shape[0]
        y = torch.empty(M, N, device=x.device)
        _linear_kernel[(M // 64, N // 64)](x, self.weight, self.bias, y, M, N, K, BM=64, BN=64, BK=32)
        return y
