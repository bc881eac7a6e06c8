# Local loop counters and counters that never change the work.
# kaudit-test: ignore=no-authored-kernel,reference-resubmitted
import torch


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        i = 0
        while i < 4:
            x = x + 1
            i += 1
        if x.dim() == 2:
            x = x.unsqueeze(0)
        return x
