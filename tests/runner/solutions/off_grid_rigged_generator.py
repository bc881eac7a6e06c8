# Hostile: right on every graded shape, and at any other shape the problem's
# generator is changed in this process (its x drawn as zeros), so that the
# off-grid calls see other inputs than the probe seed draws. Where those
# inputs are drawn from the seed in each process, the fingerprints differ and
# the off-grid calls fail with that reason.
import sys

import torch

GRADED = {(64, 128, 128), (96, 192, 192)}  # linear_relu's (rows, k, n)
_problem = sys.modules.get("reference")
_draw = getattr(_problem, "get_inputs")


def _rigged():
    inputs = _draw()
    if (_problem.rows, _problem.k, _problem.n) not in GRADED:
        inputs[0] = torch.zeros_like(inputs[0])
    return inputs


setattr(_problem, "get_inputs", _rigged)


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)

    def forward(self, x, w):
        return torch.relu(x @ w + self.bias)
