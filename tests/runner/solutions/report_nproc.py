# Clean, but at import it prints to stderr, for the test, the RLIMIT_NPROC it
# runs under and the one the first process of its PID namespace (the
# sandbox's first process, which its user namespace was made with) has.
import resource
import sys

import torch


def max_processes(limits_file):
    try:
        with open(limits_file) as f:
            for line in f:
                if line.startswith("Max processes"):
                    return line.split()[2]
    except OSError as e:
        return "unreadable-" + type(e).__name__
    return "absent"


own = resource.getrlimit(resource.RLIMIT_NPROC)[0]
sys.stderr.write(f"kaudit-nproc self={'unlimited' if own == resource.RLIM_INFINITY else own} "
                 f"first={max_processes('/proc/1/limits')}\n")
sys.stderr.flush()


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)

    def forward(self, x, w):
        return torch.relu(x @ w + self.bias)
