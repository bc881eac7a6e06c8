"""Attack, class 2 (results reported from inside the process): a relay on a
dup of the channel.

What it does: at import it keeps a dup of file descriptor 3 (the channel),
makes a pipe, and puts the pipe's write end at descriptor 3 with os.dup2: the
harness's CHANNEL object now writes into the pipe. A forked relay (a thread
would die with the harness's os._exit before passing on "done") reads every
line and forwards it to the real channel, dividing the numbers in each
"timing" message's times_ms by 100. forward computes the right answer every
call: only the times are forged.

What kaudit must report: never clean and correct. The channel having been
replaced under the harness is tampering (harness-tampered: the runner reads
from /proc which pipe the harness's descriptor 3 is); times that did not come
from the harness are forged (timing-forged).
"""
import json
import os

import torch


def _relay(source, sink):
    buf = b""
    while True:
        chunk = os.read(source, 65536)
        if not chunk:
            break
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            try:
                msg = json.loads(line)
                if isinstance(msg, dict) and msg.get("event") == "timing":
                    msg["times_ms"] = [t / 100.0 for t in msg["times_ms"]]
                    line = json.dumps(msg, separators=(",", ":")).encode()
            except ValueError:
                pass
            os.write(sink, line + b"\n")
    if buf:
        os.write(sink, buf)


def _install():
    try:
        real = os.dup(3)
    except OSError:
        return
    r, w = os.pipe()
    if os.fork() == 0:
        try:
            os.close(w)
            os.close(3)
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            _relay(r, real)
        finally:
            os._exit(0)
    os.close(r)
    os.dup2(w, 3)
    os.close(w)
    os.close(real)


_install()


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)

    def forward(self, x, w):
        return torch.relu(torch.matmul(x, w) + self.bias)
