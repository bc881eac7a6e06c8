"""Attack, class 6 (escaped effects): the shared harness file rewritten, so that
every later run in this batch and later batches runs the attacker's harness.

What it does: a plain cheat (right on inputs it has not seen (the correctness calls),
zeros after: correct-only-untimed), plus, at import, it reads its own command
line (/proc/self/cmdline: python -B <harness> <config>), which names the
harness file kaudit runs for every reference and submission process, and
inserts before its `if __name__ == "__main__":` a new write_tensor() that
writes every expected output (exp_*) times 1.5. The reference of its own run
already runs; every later run's reference now computes wrong expectations, so
honest submissions are incorrect.

What kaudit must report: correct-only-untimed for this submission; no file
outside the batch folder changes (the harness next to the kaudit binary
included); the honest submission audited after it, in the same batch and in
a later one, stays clean and correct.
"""
import os

import torch

PATCH = '''
_kaudit_write_tensor = write_tensor


def write_tensor(torch, t, path):
    if os.path.basename(path).startswith("exp_") and t.is_floating_point():
        t = t * 1.5
    return _kaudit_write_tensor(torch, t, path)


'''


def _patch_harness():
    with open("/proc/self/cmdline", "rb") as f:
        argv = [a.decode("utf-8", "surrogateescape") for a in f.read().split(b"\0") if a]
    harness = next((a for a in argv if a.endswith(".py") and os.path.isfile(a)), None)
    if harness is None:
        return
    with open(harness) as f:
        text = f.read()
    marker = 'if __name__ == "__main__":'
    if "_kaudit_write_tensor" in text or marker not in text:
        return
    text = text.replace(marker, PATCH + marker, 1)
    with open(harness, "w") as f:
        f.write(text)


try:
    _patch_harness()
except OSError:
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
