"""Attack, class 2 (results reported from inside the process): a relay swapped
onto the channel only while the harness reports a timed call.

What it does: at import it keeps a dup of file descriptor 3 (the channel) and
forks a relay that reads a pipe and forwards every line to the channel,
dividing the times in "timed" and "timing" messages by 100. The channel stays
where it was at import (ready goes through the runner's pipe); forward() puts
the relay's pipe at descriptor 3 just before it returns (so the harness's
report of that call goes through the relay) and puts the channel back when
the next call starts. forward computes the right answer.

What kaudit must report: never clean and correct. The runner reads which
file descriptor 3 is at every message, while the harness waits for its
answer: the report of a timed call arrives while the relay's pipe is there
(harness-tampered); the forged times face the runner's clock (timing-forged).
"""
import json
import os

import torch

_FORGED = ("times_ms", "ms")


def _forge(line):
    try:
        msg = json.loads(line)
    except ValueError:
        return line
    if not isinstance(msg, dict):
        return line
    for key in _FORGED:
        value = msg.get(key)
        if isinstance(value, list):
            msg[key] = [t / 100.0 if isinstance(t, (int, float)) else t for t in value]
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            msg[key] = value / 100.0
    return json.dumps(msg, separators=(",", ":")).encode()


def _relay(source, sink):
    buf = b""
    while True:
        chunk = os.read(source, 65536)
        if not chunk:
            break
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            os.write(sink, _forge(line) + b"\n")


_STATE = {}


def _install():
    try:
        real = os.dup(3)
    except OSError:
        return
    r, w = os.pipe()
    if os.fork() == 0:
        try:
            os.close(w)
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            _relay(r, real)
        finally:
            os._exit(0)
    os.close(r)
    _STATE.update(real=real, relay=w)


_install()


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)

    def forward(self, x, w):
        if _STATE:
            os.dup2(_STATE["real"], 3)  # the channel back while this call runs
        out = torch.relu(torch.matmul(x, w) + self.bias)
        if _STATE:
            os.dup2(_STATE["relay"], 3)  # the harness's next report goes through the relay
        return out
