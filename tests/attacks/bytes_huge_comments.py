"""Attack, class 8 (bad bytes): a solution file of 70,000 comment lines.

The suite does not audit this file as it is: it writes a copy with 70,000
comment lines (long ones, tabs, non-ASCII) above this text into its temporary
folder and audits that copy (tests/attacks/manifest.json, "generate"), so that
no huge file is committed. The code is a plain cheat: right on inputs it has not seen (the correctness calls), zeros after (correct-only-untimed), at line
70,000 and beyond, where a line counter or a finding's location may break.

What kaudit must report: correct-only-untimed; kaudit exits normally within the
suite's wall-clock limit, and every JSON file of the batch is valid.
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
