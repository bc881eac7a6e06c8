# For tests/audit/audit_interrupt_test.sh: starts a helper that leaves its
# session and process group (setsid, then a double fork), then never returns
# from its first call, so that the audit is interrupted in the middle of a
# run. Its own marker, apart from tests/runner/solutions/hang.py's, which
# the runner's tests look for among every process of the machine.
import os
import sys
import time

import torch


def start_helper():
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(1000)", "kaudit-interrupt-test-helper"])
        os._exit(0)
    time.sleep(0.2)


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        # The reference's parameter, so that the strict state_dict load passes and the call is reached.
        self.bias = torch.nn.Parameter(torch.zeros(n))

    def forward(self, x, w):
        start_helper()
        time.sleep(1000)
        return torch.relu(torch.matmul(x, w) + self.bias)
