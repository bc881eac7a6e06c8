"""Attack, class 2 (results reported from inside the process): json.dumps
patched after import.

What it does: the harness encodes every channel message with json.dumps from
the json module it shares with the submission. At import the submission
replaces json.dumps with a wrapper that divides every number in a "timing"
message's times_ms by 100 before encoding. forward is honest: only the
reported times are forged.

What kaudit must report: never clean and correct: the times are forged
(timing-forged, pending); a standard module the harness uses was replaced
(monkeypatching statically, harness-tampering at run time, pending).
"""
import json

import torch

_encode = json.dumps


def _dumps(obj, *args, **kwargs):
    if isinstance(obj, dict) and obj.get("event") == "timing" and isinstance(obj.get("times_ms"), list):
        obj = dict(obj, times_ms=[t / 100.0 for t in obj["times_ms"]])
    return _encode(obj, *args, **kwargs)


json.dumps = _dumps


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)

    def forward(self, x, w):
        return torch.relu(torch.matmul(x, w) + self.bias)
