import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def smooth_l1_partials(p_ptr, t_ptr, out_ptr, n, beta, BLOCK: tl.constexpr, TILES: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in range(TILES):
        offs = (pid * TILES + i) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        d = tl.load(p_ptr + offs, mask=m, other=0.0).to(tl.float32) - tl.load(t_ptr + offs, mask=m, other=0.0).to(tl.float32)
        ad = tl.abs(d)
        v = tl.where(ad < beta, 0.5 * d * d / beta, ad - 0.5 * beta)
        acc += tl.where(m, v, 0.0)
    tl.store(out_ptr + pid, tl.sum(acc, axis=0))


def _mean_of_partials(partials: torch.Tensor, n: int) -> torch.Tensor:
    return partials.sum(dtype=torch.float64).div(n).to(torch.float32)


_mean_of_partials_c = torch.compile(_mean_of_partials, mode="max-autotune-no-cudagraphs", dynamic=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.beta = 1.0

    def forward(self, predictions, targets):
        p = predictions.contiguous()
        t = targets.contiguous()
        assert p.shape == t.shape, "predictions and targets must have the same shape"
        n = p.numel()
        BLOCK, TILES = 4096, 8
        progs = max(triton.cdiv(n, BLOCK * TILES), 1)
        partials = torch.empty(progs, device=p.device, dtype=torch.float32)
        smooth_l1_partials[(progs,)](p, t, partials, n, self.beta, BLOCK=BLOCK, TILES=TILES, num_warps=8)
        return _mean_of_partials_c(partials, n).to(predictions.dtype)
