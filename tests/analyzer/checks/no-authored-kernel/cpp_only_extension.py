# no-authored-kernel: the load_inline extension has no __global__ kernel; its
# C++ calls ATen, so forward reaches library code only.
# kaudit-test: ignore=banned-call
import torch
from torch.utils.cpp_extension import load_inline

cpp_src = r"""
#include <torch/extension.h>

torch::Tensor fused(torch::Tensor a, torch::Tensor b) {
    return torch::relu(a.mm(b));
}
"""

_ext = load_inline(name="fused_cpp_only", cpp_sources=cpp_src, functions=["fused"])


class ModelNew(torch.nn.Module):
    def forward(self, a, b):  # expect: no-authored-kernel
        return _ext.fused(a, b)
