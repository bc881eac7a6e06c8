# Dies of a segmentation fault in its first call.
import os
import signal

import torch


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        # The reference's parameter, so that the strict state_dict load (as
        # KernelBench-Hard's check.py makes it) passes and the call is reached.
        self.bias = torch.nn.Parameter(torch.zeros(n))

    def forward(self, x, w):
        os.kill(os.getpid(), signal.SIGSEGV)
