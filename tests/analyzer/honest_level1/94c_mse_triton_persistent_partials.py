import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def sqerr_partials(p_ptr, t_ptr, part_ptr, n, TILES: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in range(TILES):
        offs = (pid * TILES + i) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        d = tl.load(p_ptr + offs, mask=m, other=0.0) - tl.load(t_ptr + offs, mask=m, other=0.0)
        acc += d * d
    tl.store(part_ptr + pid, tl.sum(acc, axis=0))


class ModelNew(nn.Module):
    BLOCK = 4096
    TILES = 16

    def __init__(self):
        super().__init__()
        self._partials = None   # scratch, overwritten by every call

    def forward(self, predictions, targets):
        p = predictions.contiguous()
        t = targets.contiguous()
        n = p.numel()
        progs = max(triton.cdiv(n, self.BLOCK * self.TILES), 1)
        if self._partials is None or self._partials.numel() < progs or self._partials.device != p.device:
            self._partials = torch.empty(progs, device=p.device, dtype=torch.float32)
        parts = self._partials[:progs]
        sqerr_partials[(progs,)](p, t, parts, n, TILES=self.TILES, BLOCK=self.BLOCK, num_warps=8)
        # A few thousand partial sums: finish on the host side of the graph with one small reduction.
        return parts.sum() / n
