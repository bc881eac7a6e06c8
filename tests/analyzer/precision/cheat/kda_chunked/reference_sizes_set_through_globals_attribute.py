"""Cheat: the reference-shrinking def is reached through a function's
__globals__, a frame's f_globals and the file's own module imported by name,
each with a name joined at run time: no def of a file that reaches its own
namespace so is provably uncalled.
"""
import importlib
import sys

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, B, T, H, K, V, chunk_size=64):
        super().__init__()
        Model.forward.__globals__["_" + "shrink_t"]()
        sys._getframe().f_globals["_" + "shrink_h"]()
        getattr(importlib.import_module(__name__), "_" + "shrink_k")()

    def forward(self, q, k, v, g, beta):  # expect-lead: no-authored-kernel
        return v * beta[..., None].to(v.dtype)


def _shrink_t():
    import reference

    reference.T = 64  # expect: monkeypatching


def _shrink_h():
    import reference

    reference.H = 1  # expect: monkeypatching


def _shrink_k():
    import reference

    reference.K = 16  # expect: monkeypatching
