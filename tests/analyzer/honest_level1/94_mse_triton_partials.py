import torch
import torch.nn as nn
import triton
import triton.language as tl

_BLOCK = 4096
_MAX_PARTIALS = 8192


@triton.jit
def _sq_diff_partials(p_ptr, t_ptr, part_ptr, n, iters_per_prog, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    base = pid.to(tl.int64) * iters_per_prog * BLOCK
    for i in range(0, iters_per_prog):
        offs = base + i * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        p = tl.load(p_ptr + offs, mask=m, other=0.0).to(tl.float32)
        t = tl.load(t_ptr + offs, mask=m, other=0.0).to(tl.float32)
        d = p - t
        acc += d * d
    tl.store(part_ptr + pid, tl.sum(acc, axis=0))


@triton.jit
def _finish_mean(part_ptr, out_ptr, num_parts, n, BLOCK_P: tl.constexpr):
    offs = tl.arange(0, BLOCK_P)
    v = tl.load(part_ptr + offs, mask=offs < num_parts, other=0.0)
    total = tl.sum(v, axis=0)
    tl.store(out_ptr, (total / n).to(out_ptr.dtype.element_ty))


# Scratch buffers for the per-program partial sums, keyed on (device, dtype).
# They hold intermediates only; every call overwrites all entries it reads.
_PARTIALS = {}


def _partials(device):
    key = (device, torch.float32)
    buf = _PARTIALS.get(key)
    if buf is None:
        buf = torch.empty(_MAX_PARTIALS, device=device, dtype=torch.float32)
        _PARTIALS[key] = buf
    return buf


def mse_mean(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    if pred.shape != target.shape:
        pred, target = torch.broadcast_tensors(pred, target)
    pred = pred.contiguous()
    target = target.contiguous()
    n = pred.numel()
    out_dtype = torch.promote_types(pred.dtype, target.dtype)
    out = torch.empty((), device=pred.device, dtype=out_dtype)
    tiles = triton.cdiv(n, _BLOCK)
    num_progs = min(tiles, 1024)
    iters = triton.cdiv(tiles, max(num_progs, 1))
    parts = _partials(pred.device)
    _sq_diff_partials[(num_progs,)](pred, target, parts, n, iters, BLOCK=_BLOCK, num_warps=8)
    _finish_mean[(1,)](parts, out, num_progs, n, BLOCK_P=triton.next_power_of_2(num_progs), num_warps=4)
    return out


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, predictions, targets):
        return mse_mean(predictions, targets)
