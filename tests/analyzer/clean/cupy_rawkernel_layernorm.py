# Clean: a CuPy RawKernel layer norm (one block per row, warp-shuffle
# reductions) launched on PyTorch's current stream through DLPack.
import cupy as cp
import torch
import torch.nn as nn

_LAYERNORM_SRC = r"""
extern "C" __global__
void layernorm_fwd(const float* __restrict__ x, const float* __restrict__ gamma,
                   const float* __restrict__ beta, float* __restrict__ y,
                   int cols, float eps) {
    extern __shared__ float partial[];
    const int row = blockIdx.x;
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;

    float sum = 0.0f, sq = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        float v = xr[c];
        sum += v;
        sq += v * v;
    }
    for (int off = 16; off > 0; off >>= 1) {
        sum += __shfl_down_sync(0xffffffff, sum, off);
        sq += __shfl_down_sync(0xffffffff, sq, off);
    }
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (lane == 0) {
        partial[warp] = sum;
        partial[warp + 32] = sq;
    }
    __syncthreads();
    if (warp == 0) {
        int warps = blockDim.x / 32;
        sum = lane < warps ? partial[lane] : 0.0f;
        sq = lane < warps ? partial[lane + 32] : 0.0f;
        for (int off = 16; off > 0; off >>= 1) {
            sum += __shfl_down_sync(0xffffffff, sum, off);
            sq += __shfl_down_sync(0xffffffff, sq, off);
        }
        if (lane == 0) {
            partial[0] = sum;
            partial[32] = sq;
        }
    }
    __syncthreads();
    const float mean = partial[0] / cols;
    const float var = partial[32] / cols - mean * mean;
    const float inv = rsqrtf(var + eps);
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        yr[c] = (xr[c] - mean) * inv * gamma[c] + beta[c];
}
"""

_layernorm = cp.RawKernel(_LAYERNORM_SRC, "layernorm_fwd")


class ModelNew(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        shape = x.shape
        x2 = x.contiguous().view(-1, shape[-1])
        rows, cols = x2.shape
        y = torch.empty_like(x2)
        threads = 256
        with cp.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream):
            _layernorm(
                (rows,), (threads,),
                (cp.from_dlpack(x2), cp.from_dlpack(self.weight.detach()), cp.from_dlpack(self.bias.detach()),
                 cp.from_dlpack(y), cp.int32(cols), cp.float32(self.eps)),
                shared_mem=64 * 4,
            )
        return y.view(shape)
