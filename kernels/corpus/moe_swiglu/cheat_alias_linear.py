# Cheat (banned op through an alias): routing and the SwiGLU epilogue are a
# Triton kernel, but the expert products go through a projection helper bound
# at import to torch.nn.functional.linear under another name.
import torch
import triton
import triton.language as tl
from torch.nn import functional as nnf

_project = nnf.linear


@triton.jit
def _swiglu_kernel(gu_ptr, out_ptr, n_rows, I, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    m = cols < I
    gate = tl.load(gu_ptr + row.to(tl.int64) * 2 * I + cols, mask=m, other=0.0).to(tl.float32)
    up = tl.load(gu_ptr + row.to(tl.int64) * 2 * I + I + cols, mask=m, other=0.0).to(tl.float32)
    tl.store(out_ptr + row.to(tl.int64) * I + cols, (gate / (1.0 + tl.exp(-gate)) * up).to(tl.bfloat16), mask=m)


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, w13, expert_ids):
        T, topk = expert_ids.shape
        E, two_i, _ = w13.shape
        inter = two_i // 2
        flat = expert_ids.reshape(-1)
        order = torch.argsort(flat, stable=True)
        counts = torch.bincount(flat, minlength=E).tolist()
        rows = x[order // topk]
        gate_up = torch.empty(order.numel(), two_i, device=x.device, dtype=torch.float32)
        start = 0
        for e, c in enumerate(counts):
            if c:
                gate_up[start:start + c] = _project(rows[start:start + c].float(), w13[e].float())
            start += c
        act = torch.empty(order.numel(), inter, device=x.device, dtype=x.dtype)
        _swiglu_kernel[(order.numel(), triton.cdiv(inter, 1024))](gate_up, act, order.numel(), inter, BLOCK=1024)
        out = torch.empty_like(act)
        out[order] = act
        return out.reshape(T, topk, inter)
