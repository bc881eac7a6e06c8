# no-authored-kernel near-miss: the extension is built lazily by a cached
# builder function and its kernel is reached through it.
import functools

import torch
from torch.utils.cpp_extension import load_inline

_CUDA = r"""
#include <torch/extension.h>
__global__ void negate_kernel(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = -x[i];
}
torch::Tensor negate(torch::Tensor x) {
    auto y = torch::empty_like(x);
    int n = x.numel();
    negate_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""


@functools.lru_cache(maxsize=None)
def _module():
    return load_inline(name="negate_ext", cpp_sources="torch::Tensor negate(torch::Tensor x);",
                       cuda_sources=_CUDA, functions=["negate"])


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return _module().negate(x)
