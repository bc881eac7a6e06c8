# Outputs cached under the identity of the inputs, and outputs computed once.
# kaudit-test: ignore=no-authored-kernel,reference-resubmitted
import torch


def compute(a, b):
    return a * b


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.cache = {}
        self.last_a = None
        self.last_out = None

    def forward(self, a, b):
        key = (a.data_ptr(), b.data_ptr(), a._version)
        if key in self.cache:  # expect: output-cached-on-identity
            return self.cache[key]
        out = compute(a, b)
        self.cache[key] = out
        return out


class ByIs(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.last_a = None
        self.last_out = None

    def forward(self, a):
        if a is self.last_a:  # expect: output-cached-on-identity
            return self.last_out
        self.last_a = a
        self.last_out = compute(a, a)
        return self.last_out


_memo = {}


def cached_by_id(x):
    if id(x) in _memo:  # expect: output-cached-on-identity
        return _memo[id(x)]
    _memo[id(x)] = compute(x, x)
    return _memo[id(x)]
