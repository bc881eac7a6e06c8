"""Control (not an attack on a gap): a plain cheat kaudit catches today.

What it does: right on inputs it has not seen (the correctness calls), zeros in every
call after them (warm-up and timed). It keeps the suite honest about itself:
if this one stops passing, the suite's own checks are broken, not kaudit.

What kaudit must report: incorrect, correct-only-untimed (the sampled bench
calls are wrong on the very inputs that passed).
"""
import torch


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
