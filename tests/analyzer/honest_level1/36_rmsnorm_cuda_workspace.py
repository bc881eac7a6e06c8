import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# RMSNorm over dim=1 of an (B, C, *spatial) tensor:
#   y[b, c, s] = x[b, c, s] / sqrt(mean_c(x[b, c, s]^2) + eps)
# Pass 1 writes 1/rms per (b, s) into a workspace; pass 2 scales.

cuda_src = r"""
#include <torch/extension.h>
#include <c10/cuda/CUDAStream.h>

__global__ void inv_rms_kernel(const float* __restrict__ x, float* __restrict__ inv_rms,
                               int64_t B, int64_t C, int64_t S, float eps) {
    int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;   // over B * S
    if (idx >= B * S) return;
    int64_t b = idx / S, s = idx % S;
    const float* p = x + b * C * S + s;
    float acc = 0.f;
    for (int64_t c = 0; c < C; ++c) {
        float v = p[c * S];
        acc = fmaf(v, v, acc);
    }
    inv_rms[idx] = rsqrtf(acc / (float)C + eps);
}

__global__ void scale_kernel(const float* __restrict__ x, const float* __restrict__ inv_rms,
                             float* __restrict__ y, int64_t B, int64_t C, int64_t S) {
    int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;   // over B * C * S
    int64_t total = B * C * S;
    for (; idx < total; idx += (int64_t)gridDim.x * blockDim.x) {
        int64_t s = idx % S;
        int64_t b = idx / (C * S);
        y[idx] = x[idx] * inv_rms[b * S + s];
    }
}

torch::Tensor rmsnorm_cuda(torch::Tensor x, torch::Tensor workspace, double eps) {
    TORCH_CHECK(x.is_cuda() && workspace.is_cuda(), "tensors must be on CUDA");
    TORCH_CHECK(x.scalar_type() == at::kFloat, "x must be float32");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(x.dim() >= 2, "x must have at least 2 dims");
    const int64_t B = x.size(0), C = x.size(1);
    const int64_t S = C == 0 || B == 0 ? 0 : x.numel() / (B * C);
    TORCH_CHECK(workspace.numel() >= B * S, "workspace too small");
    auto y = torch::empty_like(x);
    if (x.numel() == 0) return y;
    auto stream = c10::cuda::getCurrentCUDAStream();
    const int threads = 256;
    int64_t n1 = B * S;
    inv_rms_kernel<<<(unsigned)((n1 + threads - 1) / threads), threads, 0, stream>>>(
        x.data_ptr<float>(), workspace.data_ptr<float>(), B, C, S, (float)eps);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    int64_t total = x.numel();
    int64_t blocks = std::min<int64_t>((total + threads - 1) / threads, 65535LL * 8);
    scale_kernel<<<(unsigned)blocks, threads, 0, stream>>>(
        x.data_ptr<float>(), workspace.data_ptr<float>(), y.data_ptr<float>(), B, C, S);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
"""

cpp_src = "torch::Tensor rmsnorm_cuda(torch::Tensor x, torch::Tensor workspace, double eps);"

_EXT_CACHE = {}


def _get_ext():
    # Compile once per process; later ModelNew instances reuse the module.
    if "rms" not in _EXT_CACHE:
        _EXT_CACHE["rms"] = load_inline(
            name="kb_rmsnorm_ws",
            cpp_sources=cpp_src,
            cuda_sources=cuda_src,
            functions=["rmsnorm_cuda"],
            extra_cuda_cflags=["-O3"],
            verbose=False,
        )
    return _EXT_CACHE["rms"]


class ModelNew(nn.Module):
    def __init__(self, num_features: int, eps: float = 1e-5):
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self._ext = _get_ext()
        # Scratch space for the per-position 1/rms values; grown on demand and
        # reused across calls. The output itself is allocated fresh every call.
        self._workspace = None

    def _scratch(self, n: int, device) -> torch.Tensor:
        ws = self._workspace
        if ws is None or ws.numel() < n or ws.device != device:
            ws = torch.empty(max(n, 1), device=device, dtype=torch.float32)
            self._workspace = ws
        return ws

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        orig_dtype = x.dtype
        x = x.contiguous()
        if x.dtype != torch.float32:
            x = x.float()
        B, C = x.shape[0], x.shape[1]
        S = x.numel() // max(B * C, 1)
        ws = self._scratch(B * S, x.device)
        y = self._ext.rmsnorm_cuda(x, ws, self.eps)
        return y if orig_dtype == torch.float32 else y.to(orig_dtype)
