# Behaviour that depends on how many calls came before.
# kaudit-test: ignore=no-authored-kernel,reference-resubmitted,output-cached-on-identity
import torch

CALLS = 0


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0
        self.out = None

    def forward(self, x):
        self.calls += 1
        if self.calls > 3:  # expect: call-count-dependent
            return self.out
        self.out = x * 2
        return self.out


def counted(x):
    global CALLS
    CALLS = CALLS + 1
    if CALLS % 2 == 0:  # expect: call-count-dependent
        return x
    return x * 2


class Warmup(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.n = 0

    def forward(self, x):
        self.n += 1
        if self.n <= 2:  # expect: call-count-dependent
            self.tune(x)
        return x * 2

    def tune(self, x):
        pass
