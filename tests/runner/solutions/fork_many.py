# Clean, but at import it starts up to 200 processes that wait (a fork bomb,
# bounded so that the machine survives without a limit), counts how many
# started and how many forks were refused, prints both to stderr for the
# test, and ends them.
import os
import signal
import sys
import time

import torch

started, refused = [], 0
for _ in range(200):
    try:
        pid = os.fork()
    except OSError:
        refused += 1
        continue
    if pid == 0:
        time.sleep(120)
        os._exit(0)
    started.append(pid)
for pid in started:
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
sys.stderr.write(f"kaudit-fork-probe started={len(started)} refused={refused}\n")
sys.stderr.flush()


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)

    def forward(self, x, w):
        return torch.relu(x @ w + self.bias)
