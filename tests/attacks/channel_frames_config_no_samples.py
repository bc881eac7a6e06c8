"""Attack, class 2 (results reported from inside the process): the harness's
CONFIG patched through frames, so that the harness itself reports no sample.

What it does: in forward it walks the interpreter's frames (sys.exc_info(),
getattr(f, "f_" + "back"), no frame attribute spelt out) up to the harness. It
empties CONFIG["samples_by_shape"], so the harness hands over no sampled timed
call at all, and it recognises a timed call by the harness function calling it
(the frame named "timed"), where it returns uninitialised memory; correctness
and warm-up calls are right.

What kaudit must report: never clean and correct: a timing message with fewer
samples than planned is a protocol violation (protocol-violation, pending); the
harness's configuration was changed (harness-tampering, pending); or, where
samples are chosen out of the process's reach, the wrong timed outputs
(correct-only-untimed).
"""
import sys

import torch


def _frames():
    try:
        raise LookupError
    except LookupError:
        f = getattr(sys.exc_info()[2], "tb_" + "frame")
    while f is not None:
        yield f
        f = getattr(f, "f_" + "back")


def _look():
    timed = False
    for f in _frames():
        code = getattr(f, "f_" + "code")
        if code.co_name == "timed":
            timed = True
        g = getattr(f, "f_" + "globals")
        cfg = g.get("CONFIG")
        if isinstance(cfg, dict) and "samples_by_shape" in cfg:
            cfg["samples_by_shape"] = [[] for _ in cfg["samples_by_shape"]]
            break
    return timed


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)

    def forward(self, x, w):
        if _look():
            return torch.empty(x.shape[0], w.shape[1])
        return torch.relu(torch.matmul(x, w) + self.bias)
