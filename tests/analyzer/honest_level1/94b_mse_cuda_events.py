import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <torch/extension.h>
#include <c10/cuda/CUDAStream.h>
#include <c10/cuda/CUDAGuard.h>

__global__ void sqdiff_partials(const float* __restrict__ a, const float* __restrict__ b,
                                float* __restrict__ partials, int64_t begin, int64_t end) {
    __shared__ float sh[256];
    float s = 0.f;
    for (int64_t i = begin + (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < end; i += (int64_t)gridDim.x * blockDim.x) {
        float d = a[i] - b[i];
        s = fmaf(d, d, s);
    }
    sh[threadIdx.x] = s;
    __syncthreads();
    for (int k = 128; k > 0; k >>= 1) {
        if (threadIdx.x < k) sh[threadIdx.x] += sh[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) partials[blockIdx.x] = sh[0];
}

__global__ void finish_mean(const float* __restrict__ p0, const float* __restrict__ p1, int nparts,
                            float* __restrict__ out, double n) {
    __shared__ double sh[256];
    double s = 0.0;
    for (int i = threadIdx.x; i < nparts; i += 256) s += (double)p0[i] + (double)p1[i];
    sh[threadIdx.x] = s;
    __syncthreads();
    for (int k = 128; k > 0; k >>= 1) {
        if (threadIdx.x < k) sh[threadIdx.x] += sh[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) *out = (float)(sh[0] / n);
}

// Two halves of the input reduced concurrently: the first on the caller's stream, the second on
// a pool stream that waits for the caller's stream; the caller's stream waits on an event
// recorded after the second half before the final combine.  No host synchronisation.
torch::Tensor mse_two_streams(torch::Tensor a, torch::Tensor b) {
    TORCH_CHECK(a.is_cuda() && b.is_cuda(), "inputs must be CUDA tensors");
    TORCH_CHECK(a.scalar_type() == at::kFloat && b.scalar_type() == at::kFloat, "float32 only");
    TORCH_CHECK(a.sizes() == b.sizes(), "shape mismatch");
    TORCH_CHECK(a.is_contiguous() && b.is_contiguous(), "inputs must be contiguous");
    const int64_t n = a.numel();
    const int nparts = 512;
    auto p0 = torch::empty({nparts}, a.options());
    auto p1 = torch::empty({nparts}, a.options());
    auto out = torch::empty({}, a.options());
    auto main = c10::cuda::getCurrentCUDAStream();
    auto side = c10::cuda::getStreamFromPool(false, a.get_device());
    cudaEvent_t inputs_ready, side_done;
    C10_CUDA_CHECK(cudaEventCreateWithFlags(&inputs_ready, cudaEventDisableTiming));
    C10_CUDA_CHECK(cudaEventCreateWithFlags(&side_done, cudaEventDisableTiming));
    C10_CUDA_CHECK(cudaEventRecord(inputs_ready, main.stream()));
    C10_CUDA_CHECK(cudaStreamWaitEvent(side.stream(), inputs_ready, 0));
    const int64_t half = n / 2;
    sqdiff_partials<<<nparts, 256, 0, side.stream()>>>(a.data_ptr<float>(), b.data_ptr<float>(), p1.data_ptr<float>(), half, n);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    C10_CUDA_CHECK(cudaEventRecord(side_done, side.stream()));
    sqdiff_partials<<<nparts, 256, 0, main.stream()>>>(a.data_ptr<float>(), b.data_ptr<float>(), p0.data_ptr<float>(), 0, half);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    C10_CUDA_CHECK(cudaStreamWaitEvent(main.stream(), side_done, 0));
    finish_mean<<<1, 256, 0, main.stream()>>>(p0.data_ptr<float>(), p1.data_ptr<float>(), nparts, out.data_ptr<float>(), (double)n);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    // Tensors touched by the side stream stay alive until it is done.
    a.record_stream(side); b.record_stream(side); p1.record_stream(side);
    C10_CUDA_CHECK(cudaEventDestroy(inputs_ready));
    C10_CUDA_CHECK(cudaEventDestroy(side_done));
    return out;
}
"""

mse_ext = load_inline(
    name="kb_mse_two_streams",
    cpp_sources="torch::Tensor mse_two_streams(torch::Tensor a, torch::Tensor b);",
    cuda_sources=cuda_src,
    functions=["mse_two_streams"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, predictions, targets):
        p, t = predictions, targets
        if p.shape != t.shape:
            p, t = torch.broadcast_tensors(p, t)
        return mse_ext.mse_two_streams(p.contiguous().float(), t.contiguous().float())
