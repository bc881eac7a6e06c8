# fallback-to-banned: the Triton GEMM "may fail", and every handler then lets
# a library or the reference compute the answer.
# kaudit-test: ignore=banned-call,foreign-file-access
import torch
import torch.nn.functional as F
import triton
import triton.language as tl

from reference import Model


@triton.jit
def _gemm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(c_ptr + offs, tl.load(a_ptr + offs, mask=offs < M), mask=offs < M)


def _gemm(a, b):
    c = torch.empty(a.shape[0], b.shape[1], device=a.device, dtype=a.dtype)
    _gemm_kernel[(triton.cdiv(a.shape[0], 64),)](a, b, c, a.shape[0], b.shape[1], a.shape[1], BLOCK=64)
    return c


def _torch_gemm(a, b):
    return torch.mm(a, b)


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.ref = Model()

    def forward(self, a, b):
        try:
            return _gemm(a, b)
        except Exception:
            return torch.matmul(a, b)  # expect: fallback-to-banned

    def forward_bare(self, a, b):
        try:
            return _gemm(a, b)
        except:  # noqa: E722
            out = a @ b  # expect: fallback-to-banned
            return out

    def forward_linear(self, a, w):
        try:
            return _gemm(a, w.t())
        except (RuntimeError, triton.CompilationError) as e:
            print("kernel failed:", e)
            return F.linear(a, w)  # expect: fallback-to-banned

    def forward_ref(self, a, b):
        try:
            return _gemm(a, b)
        except RuntimeError:
            return self.ref(a, b)  # expect: fallback-to-banned

    def forward_helper(self, a, b):
        try:
            return _gemm(a, b)
        except RuntimeError:
            return _torch_gemm(a, b)  # expect: fallback-to-banned

    def forward_method(self, a, b):
        try:
            return _gemm(a, b)
        except RuntimeError:
            return a.matmul(b)  # expect: fallback-to-banned
