# Starts a helper that leaves its session and process group (setsid, then a
# double fork, so that it is nobody's child), then never returns from its
# first call. The helper must end with the run.
import os
import sys
import time

import torch


def start_helper():
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(1000)", "kaudit-hang-test-helper"])
        os._exit(0)
    time.sleep(0.2)


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        # The reference's parameter, so that the strict state_dict load (as
        # KernelBench-Hard's check.py makes it) passes and the call is reached.
        self.bias = torch.nn.Parameter(torch.zeros(n))

    def forward(self, x, w):
        start_helper()
        print("helper started")
        sys.stdout.flush()
        time.sleep(1000)
