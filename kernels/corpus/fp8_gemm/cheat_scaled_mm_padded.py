# Cheat (banned library call): pads K to a multiple of 16 and hands the whole
# product to torch._scaled_mm (cuBLASLt's fp8 GEMM) with row-wise scales. No
# kernel of its own; fast and correct, but the core math is the library's.
import torch
import torch.nn.functional as F


def _pad_k(t, multiple=16):
    k = t.shape[-1]
    extra = (-k) % multiple
    return F.pad(t.view(torch.uint8), (0, extra)).view(t.dtype) if extra else t


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, w, x_scale, w_scale):
        xp = _pad_k(x)
        wp = _pad_k(w)
        # row-wise scaling: scale_a (M, 1), scale_b (1, N), both fp32
        return torch._scaled_mm(xp, wp.t(), scale_a=x_scale.float(), scale_b=w_scale.float().unsqueeze(0),
                                out_dtype=torch.bfloat16)
