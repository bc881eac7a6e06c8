# Code that looks like a banned call but is not one: none of it may be reported.
# kaudit-test: ignore=no-authored-kernel,reference-resubmitted
import torch
import triton
import triton.language as tl
from torch.utils.cpp_extension import load

ext = load(name="own_ext", sources=["own_ext.cu"])


@triton.jit
def mm_kernel(a_ptr, b_ptr, c_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs[:, None] * BLOCK + offs[None, :])
    b = tl.load(b_ptr + offs[:, None] * BLOCK + offs[None, :])
    acc = tl.dot(a, b)
    tl.store(c_ptr + offs[:, None] * BLOCK + offs[None, :], acc)


class ModelNew(torch.nn.Module):
    def matmul(self, a, b):
        c = torch.empty(a.shape[0], b.shape[1], device=a.device, dtype=a.dtype)
        mm_kernel[(1,)](a, b, c, BLOCK=64)
        return c

    def forward(self, a, b):
        configs = [3, 1, 2]
        configs.sort()
        names = ["b", "a"]
        names.sort(key=len, reverse=True)
        c = self.matmul(a, b)
        d = ext.matmul(a, b)
        label = "torch.matmul is not called here"
        # torch.matmul(a, b) in a comment is not a call
        torch.backends.cudnn.benchmark = True
        return c + d.t().contiguous() + a.sum(dim=-1, keepdim=True)
