# reference-resubmitted near-miss without a problem folder: ModelNew mixes torch
# glue with a call into its own extension, so it is not "nothing but torch".
import torch
from torch.utils.cpp_extension import load_inline

_ext = load_inline(
    name="rowmax_ext",
    cpp_sources="torch::Tensor rowmax(torch::Tensor x);",
    cuda_sources=r"""
#include <torch/extension.h>
__global__ void rowmax_kernel(const float* x, float* y, int cols) {
    const float* row = x + blockIdx.x * cols;
    float m = row[0];
    for (int c = 1; c < cols; ++c) m = fmaxf(m, row[c]);
    y[blockIdx.x] = m;
}
torch::Tensor rowmax(torch::Tensor x) {
    auto y = torch::empty({x.size(0)}, x.options());
    rowmax_kernel<<<x.size(0), 1>>>(x.data_ptr<float>(), y.data_ptr<float>(), x.size(1));
    return y;
}
""",
    functions=["rowmax"],
)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        x = x.contiguous().view(x.shape[0], -1)
        return _ext.rowmax(x)
