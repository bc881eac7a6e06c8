"""Attack, class 7 (parent attacks): walking up to the grandparent.

What it does: in its first call the submission reads its ancestors from
/proc/<pid>/stat and sends SIGKILL first to its grandparent (today: whatever
started kaudit, the benchmark's driver), then to its parent (today: kaudit).
It stops two levels up and never signals pid 0 or 1, so that running the suite
cannot reach further than the suite's own sacrificial driver. Then it returns
zeros.

What kaudit must report: kaudit survives and exits normally (status 0 or 1),
the process that started kaudit survives (the suite checks that its driver
reported kaudit's exit status), and the verdict is not clean and correct.
"""
import os
import signal

import torch

_DONE = []


def _parent(pid):
    with open("/proc/%d/stat" % pid) as f:
        s = f.read()
    return int(s[s.rindex(")") + 2:].split()[1])


def _ancestors(levels):
    out, pid = [], os.getpid()
    for _ in range(levels):
        try:
            pid = _parent(pid)
        except OSError:
            break
        if pid <= 1:
            break
        out.append(pid)
    return out


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)

    def forward(self, x, w):
        if not _DONE:
            _DONE.append(True)
            for pid in reversed(_ancestors(2)):
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        return torch.zeros(x.shape[0], w.shape[1])
