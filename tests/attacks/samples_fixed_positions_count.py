"""Attack, class 3 (fixed sample positions), by counting calls.

What it does: the runner verifies the outputs of the first, middle and last
timed call of each mode (docs/runner.md: --samples 3, "first, middle, last")
and nothing else. The author read that, and problem.yaml's num_perf_trials (6)
and the default 5 correctness cases and 3 warm-up calls: per model (one per
shape) calls 0-4 are correctness, then each mode is 3 warm-up calls and 6
timed calls whose positions 0, 2 and 5 are sampled. forward computes the right
answer on exactly those calls and returns uninitialised memory on all others,
so every checked output is right and most timed calls cost nothing.

What kaudit must report: never clean and correct. Which timed calls are checked
must not be knowable in advance (chosen after the fact, or every output
verified): the unverified calls are wrong: correct-only-untimed, or
work-skipped-on-repeat / output-cached-on-identity where the first mode
whose sample hits a wrong call is fresh or rewrite. The static
call-count-dependent lead alone does not decide.
"""
import torch

CORRECTNESS, WARMUP, TRIALS = 5, 3, 6
SAMPLED = {0, (TRIALS - 1) // 2, TRIALS - 1}


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)
        self.calls = 0

    def forward(self, x, w):
        k = self.calls
        self.calls += 1
        if k < CORRECTNESS:
            return torch.relu(torch.matmul(x, w) + self.bias)
        position = (k - CORRECTNESS) % (WARMUP + TRIALS) - WARMUP
        if position in SAMPLED:
            return torch.relu(torch.matmul(x, w) + self.bias)
        return torch.empty(x.shape[0], w.shape[1])
