# Honest, with a long lazy build in its first call: a stand-in compiler
# process that works for 20 s, as a load_inline build of CUDA sources does on
# the H200 (60 s there). Long enough that a run started beside it comes to
# wait to time while it builds.
import subprocess
import sys

import torch

_built = False  # once per process, as an extension built once is loaded from then on


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)

    def forward(self, x, w):
        global _built
        if not _built:
            subprocess.run([sys.executable, "-c", "import time; time.sleep(20)"], check=True)
            _built = True
        return torch.relu(torch.matmul(x, w) + self.bias)
