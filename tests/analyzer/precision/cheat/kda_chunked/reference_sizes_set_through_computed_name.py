"""Cheat: a def that no name in the file calls shrinks the reference's sizes,
but import-time code calls it through a name it builds (`globals()[...]`), so
the def runs; a file that looks its own defs up by computed names gives no
proof that any def is dead.
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, B, T, H, K, V, chunk_size=64):
        super().__init__()

    def forward(self, q, k, v, g, beta):  # expect-lead: no-authored-kernel
        return v * beta[..., None].to(v.dtype)


def _shrink():
    import reference

    reference.T = 64  # expect: monkeypatching


globals()["_sh" + "rink"]()
