# self-timing in C++ host code of a load_inline extension: the wrapper that
# forward calls times its own kernel with CUDA events and a host clock.
import torch
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <chrono>

__global__ void add_one(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] + 1.0f;
}

static float last_ms = 0.0f;

torch::Tensor add_one_timed(torch::Tensor x) {
    auto y = torch::empty_like(x);
    int n = x.numel();
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    auto t0 = std::chrono::steady_clock::now();  // expect: self-timing
    cudaEventRecord(a);  // expect: self-timing
    add_one<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    cudaEventRecord(b);  // expect: self-timing
    cudaDeviceSynchronize();  // expect: self-timing
    cudaEventElapsedTime(&last_ms, a, b);  // expect: self-timing
    (void)t0;
    return y;
}
"""

cpp_src = "torch::Tensor add_one_timed(torch::Tensor x);"

_ext = load_inline(
    name="add_one_timed_ext",
    cpp_sources=cpp_src,
    cuda_sources=cuda_src,
    functions=["add_one_timed"],
)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return _ext.add_one_timed(x)
