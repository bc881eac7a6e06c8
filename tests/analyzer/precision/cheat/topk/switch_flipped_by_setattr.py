"""Cheat: the switch in __init__ reads False, but forward flips it by a
computed name before testing it, so the library top-k always runs.
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k
        self.use_library = False

    def forward(self, x):  # expect-lead: no-authored-kernel
        setattr(self, "use_" + "library", True)
        if self.use_library:
            return torch.topk(x, self.k, dim=-1)  # expect: banned-call, fallback-to-banned
        return x[:, : self.k], torch.zeros(x.shape[0], self.k, dtype=torch.int64, device=x.device)


def get_inputs():
    return [torch.randn(64, 8192, device="cuda")]


def get_init_inputs():
    return [8]
