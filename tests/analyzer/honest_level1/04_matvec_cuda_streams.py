import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <torch/extension.h>
#include <c10/cuda/CUDAStream.h>

// partial[m] = sum_{k in [k_begin, k_end)} A[m, k] * x[k]; one block per row.
__global__ void gemv_rows_kernel(const float* __restrict__ A, const float* __restrict__ x,
                                 float* __restrict__ partial, int64_t K, int64_t k_begin, int64_t k_end) {
    const int64_t m = blockIdx.x;
    const float* a = A + m * K;
    float s = 0.f;
    for (int64_t k = k_begin + threadIdx.x; k < k_end; k += blockDim.x) s = fmaf(a[k], x[k], s);
    __shared__ float sh[32];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffff, s, o);
    if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = s;
    __syncthreads();
    if (threadIdx.x < 32) {
        s = threadIdx.x < (blockDim.x >> 5) ? sh[threadIdx.x] : 0.f;
        for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffff, s, o);
        if (threadIdx.x == 0) partial[m] = s;
    }
}

// Launches on whatever stream is current for the caller (torch.cuda.stream(...) is honoured).
torch::Tensor gemv_partial(torch::Tensor A, torch::Tensor x, int64_t k_begin, int64_t k_end) {
    TORCH_CHECK(A.is_cuda() && x.is_cuda(), "inputs must be CUDA tensors");
    TORCH_CHECK(A.scalar_type() == at::kFloat && x.scalar_type() == at::kFloat, "float32 only");
    TORCH_CHECK(A.dim() == 2, "A must be 2-D");
    TORCH_CHECK(x.numel() == A.size(1), "x must have K elements");
    TORCH_CHECK(A.is_contiguous() && x.is_contiguous(), "inputs must be contiguous");
    TORCH_CHECK(0 <= k_begin && k_begin <= k_end && k_end <= A.size(1), "bad K range");
    const int64_t M = A.size(0), K = A.size(1);
    auto partial = torch::empty({M}, A.options());
    if (M == 0) return partial;
    auto stream = c10::cuda::getCurrentCUDAStream();
    gemv_rows_kernel<<<(unsigned)M, 512, 0, stream>>>(A.data_ptr<float>(), x.data_ptr<float>(),
                                                     partial.data_ptr<float>(), K, k_begin, k_end);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return partial;
}
"""

cpp_src = "torch::Tensor gemv_partial(torch::Tensor A, torch::Tensor x, int64_t k_begin, int64_t k_end);"

gemv = load_inline(
    name="kb_gemv_splitk_streams",
    cpp_sources=cpp_src,
    cuda_sources=cuda_src,
    functions=["gemv_partial"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    """Split-K GEMV: the two halves of K run concurrently on the caller's stream and on a
    side stream, which the caller's stream waits for before the halves are combined."""

    def __init__(self):
        super().__init__()
        self._side = None

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        A = A.contiguous()
        x = B.contiguous().view(-1)
        M, K = A.shape
        if not A.is_cuda or K < 2:
            return gemv.gemv_partial(A, x, 0, K).view(M, 1)
        if self._side is None or self._side.device != A.device:
            self._side = torch.cuda.Stream(device=A.device)
        main = torch.cuda.current_stream(A.device)
        side = self._side
        half = K // 2
        side.wait_stream(main)                     # inputs are ready before the side stream reads them
        with torch.cuda.stream(side):
            p_hi = gemv.gemv_partial(A, x, half, K)
        p_lo = gemv.gemv_partial(A, x, 0, half)
        main.wait_stream(side)                     # join before using the side stream's result
        A.record_stream(side)
        x.record_stream(side)
        p_hi.record_stream(main)
        return (p_lo + p_hi).view(M, 1)
