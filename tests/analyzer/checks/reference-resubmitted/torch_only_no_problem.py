# reference-resubmitted without a problem folder: a ModelNew whose forward is
# nothing but torch calls (low confidence); next to it, a ModelNew-shaped
# class that launches its own kernel is not judged because it is not the model.
# kaudit-test: ignore=banned-call,no-authored-kernel
import torch


class ModelNew(torch.nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = torch.nn.LayerNorm(dim)

    def forward(self, x, y):  # expect: reference-resubmitted
        z = torch.cat([x, y], dim=-1).contiguous()
        z = self.norm(z.view(z.shape[0], -1))
        return torch.nn.functional.silu(z) * len(z.shape)
