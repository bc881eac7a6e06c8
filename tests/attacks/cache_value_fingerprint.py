"""Attack, result caching across calls (pygpubench's class): outputs cached
under a fingerprint of the inputs' values, not their identity.

What it does: keeps the last few outputs keyed on a cheap fingerprint (shape
and 16 sampled elements of each input). A call whose inputs match a fingerprint
returns a copy of the stored output (a new tensor each call, so the
harness's output-reused check sees nothing): every bench call after the
first, and every correctness call on inputs seen before. New values (fresh and rewrite modes)
miss the cache and are computed, so every verified output is right. The
benchmark's bench times are those of a dictionary lookup.

What kaudit must report: never clean and correct: work-skipped-on-repeat (on a
GPU the trace, on the CPU the ATen op record: the untimed call on the repeated
inputs runs no matmul), or speedup-vanishes-with-fresh-inputs (fresh calls
many times slower than bench calls on reused inputs), even though the cached
calls are short.
"""
import torch


def _fingerprint(*tensors):
    key = []
    for t in tensors:
        flat = t.reshape(-1)
        step = max(1, flat.numel() // 16)
        key.append((tuple(t.shape), tuple(flat[::step][:16].tolist())))
    return tuple(key)


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)
        self.memo = {}

    def forward(self, x, w):
        key = _fingerprint(x, w)
        hit = self.memo.get(key)
        if hit is not None:
            return hit.clone()  # a new tensor each call: output-reused never fires
        out = torch.relu(torch.matmul(x, w) + self.bias)
        if len(self.memo) > 8:
            self.memo.clear()
        self.memo[key] = out
        return out
