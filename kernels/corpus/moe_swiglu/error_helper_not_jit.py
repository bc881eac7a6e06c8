# Error (does not build): the fused SwiGLU epilogue calls a plain Python helper
# from inside the @triton.jit kernel; Triton refuses to compile a call to a
# function that is not itself jitted.
import torch
import triton
import triton.language as tl


def _silu(v):
    return v / (1.0 + tl.exp(-v))


@triton.jit
def _dense_swiglu_kernel(x_ptr, w_ptr, out_ptr, rows_ptr, H, I, TOPK, e,
                         BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    r = pid_m * BM + tl.arange(0, BM)
    slots = tl.load(rows_ptr + r, mask=r >= 0, other=-1)
    valid = slots >= 0
    tok = tl.where(valid, slots // TOPK, 0).to(tl.int64)
    offs_n = pid_n * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    acc_g = tl.zeros((BM, BN), dtype=tl.float32)
    acc_u = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, H, BK):
        a = tl.load(x_ptr + tok[:, None] * H + k0 + offs_k[None, :], mask=valid[:, None], other=0.0)
        wg = tl.load(w_ptr + e * 2 * I * H + offs_n[None, :] * H + k0 + offs_k[:, None])
        wu = tl.load(w_ptr + e * 2 * I * H + (I + offs_n[None, :]) * H + k0 + offs_k[:, None])
        acc_g = tl.dot(a, wg, acc=acc_g)
        acc_u = tl.dot(a, wu, acc=acc_u)
    h = _silu(acc_g) * acc_u
    tl.store(out_ptr + slots[:, None].to(tl.int64) * I + offs_n[None, :], h.to(tl.bfloat16), mask=valid[:, None])


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, w13, expert_ids):
        T, topk = expert_ids.shape
        E, two_i, H = w13.shape
        inter = two_i // 2
        out = torch.empty(T, topk, inter, device=x.device, dtype=x.dtype)
        flat = expert_ids.reshape(-1)
        for e in range(E):
            rows = torch.nonzero(flat == e, as_tuple=True)[0].to(torch.int32)
            if rows.numel() == 0:
                continue
            _dense_swiglu_kernel[(triton.cdiv(rows.numel(), 64), triton.cdiv(inter, 128))](
                x, w13, out, rows, H, inter, topk, e, BM=64, BN=128, BK=64)
        return out
