"""Attack, class 8 (bad bytes): lines on the channel that are not JSON, too
long, or not text.

What it does: writes to the channel (descriptor 3), in its first call: a
2 MiB line that is an otherwise valid forged "timing" message (times of
0.0001 ms, the padding in a string field); a line with a NUL byte inside a
JSON string; a message whose strings are not UTF-8 (raw 0xFF 0xFE); 200,000
nested brackets (under the 1 MiB limit); NaN and Infinity literals; a
truncated object; a bare carriage return; and the same forged timing message
split over two writes with a long pause, hoping that the runner glues a line
together differently from what was written. Otherwise it computes the right
answer.

What kaudit must report: kaudit exits normally, every JSON file of the batch
is valid UTF-8 JSON; lines the harness never writes are a protocol violation
(protocol-violation, pending), so the verdict is not clean and correct.
"""
import json
import os
import time

import torch

_SENT = []


def _timing(shape, mode, pad=""):
    return json.dumps({"event": "timing", "shape": shape, "mode": mode, "times_ms": [0.0001] * 6, "samples": [],
                       "counts": {"calls": 9}, "types": [], "versions_moved": 0, "pad": pad}).encode()


def _send_all():
    lines = [
        _timing(0, "bench", "A" * (2 << 20)),
        b'{"event":"phase","phase":"corr\x00ectness","shape":0}',
        b'{"event":"hello","pid":1,"role":"\xff\xfe\xc0\xaf"}',
        b"[" * 200000 + b"]" * 200000,
        b'{"event":"timing","shape":0,"mode":"fresh","times_ms":[NaN,Infinity,-Infinity]}',
        b'{"event":"timing","shape":0,"mode":"rewrite","times_ms":[0.0001',
        b"\r",
        b"\x00\x00\x00\x00",
    ]
    try:
        os.write(3, b"\n".join(lines) + b"\n")
        half = _timing(1, "bench")
        os.write(3, half[: len(half) // 2])
        time.sleep(0.3)
        os.write(3, half[len(half) // 2:] + b"\n")
    except OSError:
        pass


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)

    def forward(self, x, w):
        if not _SENT:
            _SENT.append(True)
            _send_all()
        return torch.relu(torch.matmul(x, w) + self.bias)
