"""Attack, class 8 (bad bytes): bytes that are not UTF-8 on stdout and stderr.

What it does: at import and in every call it writes, with os.write on
descriptors 1 and 2, invalid UTF-8 (lone continuation bytes, overlong forms,
encoded surrogates, 0xFF), NUL bytes, terminal escape sequences and a
half-written multi-byte character at the very end of the stream, hoping that
the runner's capture, the JSON documents that hold the tails, or the reports
break. Besides, a plain cheat: right on inputs it has not seen (the correctness calls),
zeros after (correct-only-untimed).

What kaudit must report: correct-only-untimed; kaudit exits normally and every
JSON file of the batch is valid UTF-8 JSON.
"""
import os

import torch

JUNK = (b"\xff\xfe\x80\xbf \xc0\xaf \xe0\x80\xaf \xed\xa0\x80\xed\xbf\xbf \x00\x00 "
        b"\x1b[2J\x1b]0;pwned\x07 \xf8\x88\x80\x80\x80 \xc3\x28 \xe2\x28\xa1\n")


def _spray():
    for fd in (1, 2):
        try:
            os.write(fd, JUNK * 4)
        except OSError:
            pass


_spray()


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)
        self.calls = 0
        self.seen = set()

    def forward(self, x, w):
        self.calls += 1
        # Timed without counting calls (the runner mixes probe cases in among the
        # correctness calls): the warm-up and the timed calls reuse inputs it saw.
        repeat = x.data_ptr() in self.seen
        self.seen.add(x.data_ptr())
        _spray()
        if self.calls == 5:
            for fd in (1, 2):
                os.write(fd, b"\xe2\x82")  # half of a three-byte character
        if repeat:
            return torch.zeros(x.shape[0], w.shape[1])
        return torch.relu(torch.matmul(x, w) + self.bias)
