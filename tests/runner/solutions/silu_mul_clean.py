# Honest: silu(g) * x from the current inputs, every call.
import torch


class Model(torch.nn.Module):
    def forward(self, x, g):
        return torch.nn.functional.silu(g) * x
