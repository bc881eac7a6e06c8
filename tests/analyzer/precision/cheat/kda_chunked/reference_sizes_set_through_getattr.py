"""Cheat: the same shrink, reached through getattr on the file's own module
with a name joined at run time.
"""
import sys

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, B, T, H, K, V, chunk_size=64):
        super().__init__()
        getattr(sys.modules[__name__], "_".join(["", "prepare"]))()

    def forward(self, q, k, v, g, beta):  # expect-lead: no-authored-kernel
        return v * beta[..., None].to(v.dtype)


def _prepare():
    import reference

    reference.T = 64  # expect: monkeypatching
