"""Attack, class 2 (results reported from inside the process): forged lines
written straight to the channel, file descriptor 3, with os.write.

What it does: computes honestly through the correctness calls of both shapes.
At the first timing call of the last shape (the first call whose inputs are the
very tensors of the call before: bench reuses them) it writes, with os.write(3),
one forged "timing" message for every shape and mode (6 calls of 0.4 us each,
an empty sample list, clean output counts) and then "done". The runner keys
timings by (shape, mode), so the forged ones replace the real ones it already
read, and it stops reading at "done": the real timing of the last shape never
counts. From then on forward returns uninitialised memory.

What kaudit must report: never clean and correct. Messages on the channel that
the harness did not write (a second "done", timings for modes already
reported, empty sample lists) are a protocol violation (protocol-violation,
pending) and the times are forged (timing-forged, pending); a runner that
ignores them reads the real timing, whose samples are wrong
(correct-only-untimed).
"""
import json
import os

import torch

_STATE = {"models": 0, "forged": False}
_MODES = ("bench", "fresh", "rewrite")


def _forge(shapes, trials):
    lines = []
    for s in range(shapes):
        for m in _MODES:
            lines.append({"event": "timing", "shape": s, "mode": m, "times_ms": [0.0004] * trials, "samples": [],
                          "counts": {"calls": trials + 3, "not_tensor": 0, "non_plain": 0, "aliases_input": 0,
                                     "reused": 0},
                          "types": [], "versions_moved": 0})
    lines.append({"event": "done"})
    os.write(3, "".join(json.dumps(l) + "\n" for l in lines).encode())


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)
        self.shape_index = _STATE["models"]
        _STATE["models"] += 1
        self.previous = None

    def forward(self, x, w):
        again = self.previous is x
        self.previous = x
        if again and self.shape_index == 1 and not _STATE["forged"]:
            _STATE["forged"] = True
            _forge(2, 6)
        if _STATE["forged"]:
            return torch.empty(x.shape[0], w.shape[1])
        return torch.relu(torch.matmul(x, w) + self.bias)
