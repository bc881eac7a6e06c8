# side-stream-or-thread in C++ host code: a stream of its own and a host thread.
import torch
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <thread>
#include <future>

__global__ void square(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] * x[i];
}

torch::Tensor square_async(torch::Tensor x) {
    auto y = torch::empty_like(x);
    int n = x.numel();
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);  // expect: side-stream-or-thread
    square<<<(n + 255) / 256, 256, 0, s>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    std::thread t([] {});  // expect: side-stream-or-thread
    t.detach();
    auto f = std::async(std::launch::async, [] { return 0; });  // expect: side-stream-or-thread
    (void)f;
    return y;
}
"""

_ext = load_inline(
    name="square_async_ext",
    cpp_sources="torch::Tensor square_async(torch::Tensor x);",
    cuda_sources=cuda_src,
    functions=["square_async"],
)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return _ext.square_async(x)
