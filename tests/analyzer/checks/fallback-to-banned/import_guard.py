# fallback-to-banned: an import or compile guard decides between the authored
# kernel and the library.
# kaudit-test: ignore=banned-call
import torch

try:
    from torch.utils.cpp_extension import load_inline

    _ext = load_inline(
        name="tiled_mm",
        cpp_sources="torch::Tensor tiled_mm(torch::Tensor a, torch::Tensor b);",
        cuda_sources=r"""
#include <torch/extension.h>
__global__ void tiled_mm_kernel(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] * b[i];
}
torch::Tensor tiled_mm(torch::Tensor a, torch::Tensor b) {
    auto c = torch::empty_like(a);
    int n = a.numel();
    tiled_mm_kernel<<<(n + 255) / 256, 256>>>(a.data_ptr<float>(), b.data_ptr<float>(), c.data_ptr<float>(), n);
    return c;
}
""",
        functions=["tiled_mm"],
    )
    HAS_KERNEL = True
except Exception:
    _ext = None
    HAS_KERNEL = False

    def tiled_mm(a, b):
        return torch.bmm(a.unsqueeze(0), b.unsqueeze(0))[0]  # expect: fallback-to-banned


class ModelNew(torch.nn.Module):
    def forward(self, a, b):
        if not HAS_KERNEL:
            return torch.mm(a, b)  # expect: fallback-to-banned
        return _ext.tiled_mm(a, b)

    def forward_none(self, a, b):
        if _ext is None:
            return a @ b  # expect: fallback-to-banned
        return _ext.tiled_mm(a, b)

    def forward_ternary(self, a, b):
        return _ext.tiled_mm(a, b) if HAS_KERNEL else torch.matmul(a, b)  # expect: fallback-to-banned
