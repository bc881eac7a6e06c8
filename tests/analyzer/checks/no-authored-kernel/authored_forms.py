# no-authored-kernel near-misses: forward reaches an authored kernel through a
# helper, a CuPy RawKernel held on self, and an autotuned Triton kernel.
import cupy
import torch
import triton
import triton.language as tl

_SRC = r"""
extern "C" __global__ void scale(const float* x, float* y, float s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = s * x[i];
}
"""


@triton.autotune(configs=[triton.Config({"BLOCK": 256}), triton.Config({"BLOCK": 1024})], key=["n"])
@triton.jit
def _bias_kernel(x_ptr, b_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(b_ptr + offs, mask=mask), mask=mask)


def _add_bias(x, b):
    y = torch.empty_like(x)
    n = x.numel()
    _bias_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, b, y, n)
    return y


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = cupy.RawKernel(_SRC, "scale")

    def forward(self, x, b):
        y = _add_bias(x, b)
        out = torch.empty_like(y)
        n = y.numel()
        self.scale(((n + 255) // 256,), (256,), (cupy.from_dlpack(y), cupy.from_dlpack(out), cupy.float32(2.0), cupy.int32(n)))
        return out


class Model(torch.nn.Module):
    """A second class: the model class is ModelNew, so this one is not judged."""

    def forward(self, x, b):
        return x + b
