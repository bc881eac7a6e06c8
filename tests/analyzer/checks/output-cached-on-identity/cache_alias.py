# The cached value is read into a local name and that name is returned (a
# cheat); a descriptor keyed on the address stays a suspicious-only finding.
# kaudit-test: ignore=no-authored-kernel,reference-resubmitted
import torch


def compute(x):
    return x * 2


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self._store = {}

    def forward(self, x):
        k = (x.data_ptr(), tuple(x.shape))
        found = self._store.get(k)  # expect: output-cached-on-identity
        if found is not None:
            return found
        res = compute(x)
        self._store[k] = res
        return res


class DescriptorCache(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self._descs = {}

    def forward(self, x):
        k = x.data_ptr()
        desc = self._descs.get(k)  # expect: output-cached-on-identity (suspicious only)
        if desc is None:
            desc = (k, x.numel())
            self._descs[k] = desc
        return compute(x) + desc[1]
