"""Attack, class 3 (fixed sample positions), by counting calls.

What it does: the runner verifies the outputs of the first, middle and last
timed call of each mode (docs/runner.md: --samples 3, "first, middle, last")
and nothing else. The author read that, and problem.yaml's num_perf_trials (6)
and the default 3 warm-up calls: each mode is 3 warm-up calls and 6 timed
calls on the same inputs, whose positions 0, 2 and 5 are sampled. forward computes the right
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

WARMUP, TRIALS = 3, 6
SAMPLED = {0, (TRIALS - 1) // 2, TRIALS - 1}


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)
        self.last = None
        self.run = 0

    def forward(self, x, w):
        # Counting from the first call no longer finds the timed calls (the
        # input probes' cases sit at random among the correctness calls), so
        # it counts the calls in a row on the same inputs: a mode's warm-up
        # calls, then its timed calls. Correctness and fresh calls each get
        # new inputs and are computed.
        repeat = x.data_ptr() == self.last
        self.last = x.data_ptr()
        self.run = self.run + 1 if repeat else 0
        position = self.run - WARMUP
        if position < 0 or position in SAMPLED:
            return torch.relu(torch.matmul(x, w) + self.bias)
        return torch.empty(x.shape[0], w.shape[1])
