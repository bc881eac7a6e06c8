"""Attack, result caching across calls: fresh and rewrite inputs predicted.

What it does: the runner makes each fresh and rewrite call's inputs with
get_inputs() under a fixed seed (mode_seeds bench 0, fresh 100000, rewrite
200000, plus 1000 * shape + call; correctness seeds 1000, 1001, 1002). On the
first correctness call of each shape, untimed, the submission finds the
harness's problem object through the interpreter's frames, calls the problem's
own get_inputs() under each of those seeds (and the numeric-stress cases, the
first seed's inputs scaled by 0.01 and 100) and computes and stores every
answer the later calls will ask for, keyed on a fingerprint of the inputs.
Every later call is a lookup, whatever the mode; a miss in a timed call
returns a cheap wrong answer (the author trusts the prediction).

What kaudit must report: never clean and correct. Inputs must not be
predictable from the submission's process (seeds drawn per run): then the
fresh and rewrite samples miss and are wrong (work-skipped-on-repeat or
output-cached-on-identity, or correct-only-untimed).
"""
import sys

import torch

MODE_SEEDS = (100000, 200000)
CORRECTNESS_SEEDS = (1000, 1001, 1002)
STRESS_SCALES = (0.01, 100.0)
TRIALS, WARMUP = 6, 3


def _fingerprint(*tensors):
    key = []
    for t in tensors:
        flat = t.reshape(-1)
        step = max(1, flat.numel() // 16)
        key.append((tuple(t.shape), tuple(flat[::step][:16].tolist())))
    return tuple(key)


def _problem_and_shape():
    try:
        raise LookupError
    except LookupError:
        f = getattr(sys.exc_info()[2], "tb_" + "frame")
    while f is not None:
        loc = getattr(f, "f_" + "locals")
        if "problem" in loc and "i" in loc and hasattr(loc["problem"], "gen_inputs"):
            return loc["problem"], loc["i"]
        f = getattr(f, "f_" + "back")
    return None, None


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)
        self.memo = None

    def _honest(self, x, w):
        return torch.relu(torch.matmul(x, w) + self.bias)

    def _predict(self):
        self.memo = {}
        problem, i = _problem_and_shape()
        if problem is None:
            return
        state = torch.get_rng_state()
        seeds = list(CORRECTNESS_SEEDS) + [m + 1000 * i + k for m in MODE_SEEDS for k in range(TRIALS + WARMUP)]
        for seed in seeds:
            x, w = problem.gen_inputs(seed)
            self.memo[_fingerprint(x, w)] = self._honest(x, w)
            if seed == CORRECTNESS_SEEDS[0]:
                for scale in STRESS_SCALES:
                    xs, ws = [(t.to(torch.float32) * scale).to(t.dtype) for t in (x, w)]
                    self.memo[_fingerprint(xs, ws)] = self._honest(xs, ws)
        torch.set_rng_state(state)

    def forward(self, x, w):
        if self.memo is None:
            self._predict()
            return self._honest(x, w)
        hit = self.memo.get(_fingerprint(x, w))
        if hit is not None:
            return hit.clone()
        return torch.relu(x[:, : w.shape[1]] + self.bias)
