# Clean: two-pass Triton top-k (arg-max per 2048-wide slice, then a merge of
# the candidates), launched inside a try whose handler lets torch.topk answer
# when Triton cannot compile or launch the kernel on the GPU at hand (too
# little shared memory, an older Triton). On the graded shapes the launch
# never fails, so the handler never runs.
import torch
import triton
import triton.language as tl

SLICE = 2048


@triton.jit
def _slice_best(x_ptr, cv_ptr, ci_ptr, n, row_stride, slices, K: tl.constexpr, W: tl.constexpr):
    r = tl.program_id(0)
    s = tl.program_id(1)
    cols = s * W + tl.arange(0, W)
    x = tl.load(x_ptr + r.to(tl.int64) * row_stride + cols, mask=cols < n, other=float("-inf"))
    base = (r * slices + s) * K
    for j in range(K):
        at = tl.argmax(x, axis=0, tie_break_left=True)
        tl.store(cv_ptr + base + j, tl.max(x, axis=0))
        tl.store(ci_ptr + base + j, s * W + at)
        x = tl.where(tl.arange(0, W) == at, float("-inf"), x)


@triton.jit
def _merge_best(cv_ptr, ci_ptr, v_ptr, i_ptr, m, K: tl.constexpr, P: tl.constexpr):
    r = tl.program_id(0)
    lane = tl.arange(0, P)
    live = lane < m
    val = tl.load(cv_ptr + r * m + lane, mask=live, other=float("-inf"))
    idx = tl.load(ci_ptr + r * m + lane, mask=live, other=2147483647)
    for j in range(K):
        top = tl.max(val, axis=0)
        first = tl.min(tl.where(val == top, idx, 2147483647), axis=0)
        tl.store(v_ptr + r * K + j, top)
        tl.store(i_ptr + r * K + j, first.to(tl.int64))
        val = tl.where((val == top) & (idx == first), float("-inf"), val)


def _triton_topk(x, k):
    rows, n = x.shape
    slices = triton.cdiv(n, SLICE)
    cv = torch.empty(rows, slices * k, device=x.device, dtype=torch.float32)
    ci = torch.empty(rows, slices * k, device=x.device, dtype=torch.int32)
    _slice_best[(rows, slices)](x, cv, ci, n, x.stride(0), slices, K=k, W=SLICE, num_warps=8)
    vals = torch.empty(rows, k, device=x.device, dtype=torch.float32)
    idx = torch.empty(rows, k, device=x.device, dtype=torch.int64)
    p = max(16, triton.next_power_of_2(slices * k))
    _merge_best[(rows,)](cv, ci, vals, idx, slices * k, K=k, P=p, num_warps=4 if p <= 1024 else 8)
    return vals, idx


class ModelNew(torch.nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def forward(self, x):
        x = x.contiguous()
        try:
            return _triton_topk(x, self.k)
        except (triton.runtime.errors.OutOfResources, triton.CompilationError):
            return torch.topk(x, self.k, dim=-1)
