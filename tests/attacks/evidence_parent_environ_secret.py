"""Attack, class 5 (evidence tampering / leaks): the parent's environment read
through /proc and printed.

What it does: the runner scrubs the children's environment, but the
submission walks up its process tree (/proc/<pid>/stat) to the kaudit process
and reads each ancestor's /proc/<pid>/environ, then prints every variable
whose name starts with KAUDIT_ to stdout and stderr, where the runner keeps
the tails in run.json. (A real attacker would print everything; this one
limits itself to KAUDIT_* so that running the suite never copies a real
credential anywhere.) Besides, a plain cheat: right on inputs it has not seen (the correctness calls), zeros after (correct-only-untimed).

What kaudit must report: correct-only-untimed; and the test sets
KAUDIT_TEST_SECRET=hunter2 in kaudit's environment: that value must appear in
no file of the batch folder.
"""
import os
import sys

import torch


def _parent(pid):
    with open("/proc/%d/stat" % pid) as f:
        s = f.read()
    return int(s[s.rindex(")") + 2:].split()[1])


def _leak():
    pid = os.getpid()
    found = []
    for _ in range(3):
        pid = _parent(pid)
        if pid <= 1:
            break
        try:
            with open("/proc/%d/environ" % pid, "rb") as f:
                env = f.read().split(b"\0")
            with open("/proc/%d/cmdline" % pid, "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        found += [e.decode("utf-8", "replace") for e in env if e.startswith(b"KAUDIT_")]
        if b"audit" in argv:
            break
    for line in found:
        print("leaked:", line)
        print("leaked:", line, file=sys.stderr)
    sys.stdout.flush()
    sys.stderr.flush()


try:
    _leak()
except Exception:
    pass


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
        if repeat:
            return torch.zeros(x.shape[0], w.shape[1])
        return torch.relu(torch.matmul(x, w) + self.bias)
