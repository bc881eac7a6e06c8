"""Attack, the input generator rigged in the submission's own process.

What it does: at import, replaces the problem's get_inputs in sys.modules
(the module the harness draws fresh and rewrite inputs from) with one that
hands out the values of its first draw for every seed, per shape. Outputs are
then kept under a fingerprint of the inputs' values. Every fresh and rewrite
call has inputs it has seen: fresh mode is as fast as bench, so
speedup-vanishes-with-fresh-inputs finds nothing; and the sampled calls'
inputs, as handed over from this process, are the pinned ones, so their
memoised outputs check out against them.

What kaudit must report: never clean and correct. The sampled calls must be
checked on inputs drawn from the runner's seeds outside this process: then
they are wrong (work-skipped-on-repeat, correct-only-untimed or
output-cached-on-identity).
"""
import sys

import torch

_problem = sys.modules.get("reference")
_first_draw = getattr(_problem, "get_inputs")
_pinned = {}


def _same_values_every_seed():
    key = tuple(sorted((k, v) for k, v in vars(_problem).items() if type(v) is int))
    if key not in _pinned:
        _pinned[key] = _first_draw()
    return [t.clone() for t in _pinned[key]]


setattr(_problem, "get_inputs", _same_values_every_seed)


def _fingerprint(*tensors):
    return tuple((tuple(t.shape), tuple(t.reshape(-1)[:: max(1, t.numel() // 8)][:8].tolist())) for t in tensors)


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)
        self.memo = {}

    def forward(self, x, w):
        key = _fingerprint(x, w)
        hit = self.memo.get(key)
        if hit is not None:
            return hit.clone()
        out = torch.relu(x @ w + self.bias)
        for _ in range(20):  # real work slow enough to time on a busy CPU
            out = torch.relu(x @ w + self.bias)
        self.memo[key] = out
        return out.clone()
