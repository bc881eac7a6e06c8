# Honest, with a lazy build in its first call that lasts until the run's
# other processes are held stopped (its turn lent to a run waiting to time),
# at most 90 s: a stand-in compiler process that watches its parent, the
# harness, in /proc. So the test beside it does not depend on how fast the
# other run comes to wait to time.
import subprocess
import sys

import torch

_BUILD = """
import os, time
parent = os.getppid()
def stopped():
    try:
        with open("/proc/%d/stat" % parent) as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("T", "t")
    except OSError:
        return False
end = time.monotonic() + 90
while time.monotonic() < end and not stopped():
    time.sleep(0.05)
"""

_built = False  # once per process, as an extension built once is loaded from then on


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)

    def forward(self, x, w):
        global _built
        if not _built:
            subprocess.run([sys.executable, "-c", _BUILD], check=True)
            _built = True
        return torch.relu(torch.matmul(x, w) + self.bias)
