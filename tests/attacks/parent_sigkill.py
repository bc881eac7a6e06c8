"""Attack, class 7 (parent attacks): SIGKILL to the parent.

What it does: in its first call the submission sends SIGKILL to its parent
process (os.getppid(), skipped when it is 0 or 1, as in a PID namespace):
today that is kaudit itself, which dies without a verdict, a summary or a
report for anything in the batch. Then it returns zeros.

What kaudit must report: kaudit survives and exits normally (status 0 or 1),
with a verdict for this submission that is not clean and correct (its
outputs are wrong: incorrect, or an error); the process that started kaudit
is not harmed.
"""
import os
import signal

import torch

_DONE = []


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)

    def forward(self, x, w):
        if not _DONE:
            _DONE.append(True)
            parent = os.getppid()
            if parent > 1:
                try:
                    os.kill(parent, signal.SIGKILL)
                except OSError:
                    pass
        return torch.zeros(x.shape[0], w.shape[1])
