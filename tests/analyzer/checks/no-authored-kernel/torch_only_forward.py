# no-authored-kernel: a Triton kernel is defined (and even launched in
# __init__), but forward itself only calls PyTorch.
# kaudit-test: ignore=banned-call,reference-resubmitted
import torch
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def _unused_gelu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476)), mask=mask)


class ModelNew(torch.nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.proj = torch.nn.Linear(in_features, out_features)
        warm = torch.zeros(1024, device="cuda")
        _unused_gelu_kernel[(1,)](warm, warm, 1024, BLOCK=1024)

    def forward(self, x):  # expect: no-authored-kernel
        return F.gelu(self.proj(x))
