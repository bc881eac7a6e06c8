"""Attack, class 4 (forged harness facts): torch.equal, torch.allclose,
torch.isclose and Tensor.__eq__ patched to hide inputs written into.

What it does: the first correctness case of a shape hands its inputs back to
the runner whole, but later cases are compared inside the process with
torch.equal. At import the submission makes torch.equal, torch.allclose and
torch.isclose always say "equal" and Tensor.__eq__ always True, and from the
second correctness call of each shape on it scales its input x in place by
0.5 after computing the (right) answer. Timed calls do not touch the inputs.

What kaudit must report: input-mutated (a call changed its inputs), whatever
the process says about equality; monkeypatching statically.
"""
import torch

torch.equal = lambda a, b: True
torch.allclose = lambda a, b, *args, **kwargs: True
torch.isclose = lambda a, b, *args, **kwargs: torch.ones_like(a, dtype=torch.bool)
torch.Tensor.__eq__ = lambda a, b: torch.ones_like(a, dtype=torch.bool)


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)
        self.calls = 0

    def forward(self, x, w):
        self.calls += 1
        out = torch.relu(torch.matmul(x, w) + self.bias)
        if 2 <= self.calls <= 5:
            x.mul_(0.5)
        return out
