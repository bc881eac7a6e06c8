# l2-persistence: an extension that pins the weight in L2 with a persisting
# carve-out and a stream access policy window before launching its kernel.
import torch
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

__global__ void gemv(const float* w, const float* x, float* y, int n, int k) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= n) return;
    float acc = 0.0f;
    for (int i = 0; i < k; ++i) acc += w[row * k + i] * x[i];
    y[row] = acc;
}

torch::Tensor pinned_gemv(torch::Tensor w, torch::Tensor x) {
    int n = w.size(0), k = w.size(1);
    auto y = torch::empty({n}, x.options());
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    size_t bytes = w.numel() * sizeof(float);
    cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, bytes);  // expect: l2-persistence
    cudaStreamAttrValue attr = {};
    attr.accessPolicyWindow.base_ptr = w.data_ptr();  // expect: l2-persistence
    attr.accessPolicyWindow.num_bytes = bytes;
    attr.accessPolicyWindow.hitRatio = 1.0f;
    attr.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;  // expect: l2-persistence
    attr.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &attr);
    gemv<<<(n + 127) / 128, 128, 0, stream>>>(w.data_ptr<float>(), x.data_ptr<float>(), y.data_ptr<float>(), n, k);
    return y;
}
"""

_ext = load_inline(
    name="pinned_gemv_ext",
    cpp_sources="torch::Tensor pinned_gemv(torch::Tensor w, torch::Tensor x);",
    cuda_sources=cuda_src,
    functions=["pinned_gemv"],
)


class ModelNew(torch.nn.Module):
    def __init__(self, n, k):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(n, k))

    def forward(self, x):
        return _ext.pinned_gemv(self.weight, x)
