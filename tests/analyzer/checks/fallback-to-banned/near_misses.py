# fallback-to-banned near-misses: handlers that re-raise, retry the authored
# kernel with another configuration, or only allocate; device checks that
# choose a CPU path; flags unrelated to kernel availability.
import torch
import triton
import triton.language as tl


@triton.jit
def _add_kernel(x_ptr, y_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(o_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def _add(x, y, block):
    out = torch.empty_like(x)
    _add_kernel[(triton.cdiv(x.numel(), block),)](x, y, out, x.numel(), BLOCK=block)
    return out


VERBOSE = False


class ModelNew(torch.nn.Module):
    def forward(self, x, y):
        try:
            return _add(x, y, 1024)
        except triton.runtime.errors.OutOfResources:
            return _add(x, y, 256)

    def forward_raise(self, x, y):
        try:
            return _add(x, y, 1024)
        except Exception as e:
            raise RuntimeError("add kernel failed") from e

    def forward_alloc(self, x, y):
        try:
            out = _add(x, y, 1024)
        except RuntimeError:
            out = torch.zeros_like(x)
            out.copy_(x)
            out.add_(y)
        return out

    def forward_verbose(self, x, y):
        if VERBOSE:
            print(x.shape, y.shape)
        return _add(x, y, 512)
