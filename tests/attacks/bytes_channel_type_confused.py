"""Attack, class 8 (bad bytes): well-formed JSON of the wrong types on the
channel.

What it does: writes to the channel (descriptor 3), before "ready" and again in
its first call, messages with the harness's event names whose fields have the
wrong types: {"event":"call","kind":"correctness","shape":"x"}, outputs that
are a string or name files outside the exchange, {"event":"timing",
"times_ms":"fast"}, times that are strings, null, negative or huge, counts
that are lists, a "hello" whose pid is a string, a "phase" whose phase is a
number, a probe whose "differing" is a string. Otherwise it computes the
right answer: the messages alone are the attack, aimed at the runner's
parsing (a type error thrown while reading a message).

What kaudit must report: kaudit exits normally; messages the harness never
writes are a protocol violation (protocol-violation, pending), so the verdict
is not clean and correct.
"""
import json
import os

import torch

MESSAGES = [
    {"event": "hello", "pid": "me", "role": 7},
    {"event": "call", "kind": "correctness", "shape": "x"},
    {"event": "call", "kind": "correctness", "shape": 0, "case": "0", "outputs": "all"},
    {"event": "call", "kind": "correctness", "shape": 0, "case": 0, "outputs": [{"file": "../../../etc/passwd"}]},
    {"event": "call", "kind": "correctness", "shape": 0, "case": 0, "outputs": [{"file": 5}], "inputs_after": "none"},
    {"event": "call", "kind": "correctness", "shape": 1e300, "case": -1, "outputs": [{"value": [1, 2]}]},
    {"event": "timing", "times_ms": "fast"},
    {"event": "timing", "shape": 0, "mode": "bench", "times_ms": [1e-9, "x", None, -5, 1e308], "samples": "none",
     "counts": []},
    {"event": "timing", "shape": "0", "mode": 7, "samples": [{"call": "first", "outputs": {"file": 1}}]},
    {"event": "checks", "shape": 0, "counts": "none", "types": 5},
    {"event": "checks", "shape": [0], "counts": {"calls": "9", "reused": None}},
    {"event": "probe", "probe": "stream-order", "shape": 0, "differing": "many", "outputs": None},
    {"event": "phase", "phase": 7, "shape": "s", "mode": ["bench"]},
    {"event": "phase", "phase": "correctness", "shape": 1e300},
    {"event": "reference_habits", "shape": 0, "changes_inputs": "all"},
    {"event": ["done"]},
    {"event": None},
]


def _send_all():
    data = "".join(json.dumps(m) + "\n" for m in MESSAGES).encode()
    try:
        os.write(3, data)
    except OSError:
        pass


_send_all()
_SENT = []


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)

    def forward(self, x, w):
        if not _SENT:
            _SENT.append(True)
            _send_all()
        return torch.relu(torch.matmul(x, w) + self.bias)
