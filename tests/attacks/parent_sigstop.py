"""Attack, class 7 (parent attacks): SIGSTOP to the parent.

What it does: in its first call the submission sends SIGSTOP to its parent
(os.getppid(), skipped when it is 0 or 1): today kaudit itself stops, and with
it every deadline it keeps; the audit hangs until something outside kills
it. Then the submission returns zeros.

What kaudit must report: kaudit finishes within the suite's wall-clock limit
and exits normally (status 0 or 1), with a verdict for this submission that is
not clean and correct.
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
                    os.kill(parent, signal.SIGSTOP)
                except OSError:
                    pass
        return torch.zeros(x.shape[0], w.shape[1])
