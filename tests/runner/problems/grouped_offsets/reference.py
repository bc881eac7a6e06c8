"""out[offsets[g]:offsets[g+1]] = x[offsets[g]:offsets[g+1]] * w[g]: rows by group."""
import torch

rows = 256
cols = 64
groups = 8


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, offsets, w):
        out = torch.empty_like(x)
        for g in range(w.shape[0]):
            start = int(offsets[g].item())
            end = int(offsets[g + 1].item())
            out[start:end] = x[start:end] * w[g]
        return out


def get_inputs():
    x = torch.randn(rows, cols, device="cuda")
    # Even groups, the remainder to the first ones: ordered bounds from 0 to rows.
    sizes = torch.full((groups,), rows // groups, dtype=torch.int32)
    sizes[: rows % groups] += 1
    offsets = torch.zeros(groups + 1, dtype=torch.int32)
    offsets[1:] = torch.cumsum(sizes, 0)
    w = torch.randn(groups, device="cuda")
    return [x, offsets.to("cuda"), w]


def get_init_inputs():
    return []
