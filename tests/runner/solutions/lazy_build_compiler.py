# Honest, with a lazy build in its first call that runs a compiler process,
# as load_inline (ninja, nvcc) and Triton (ptxas) do: the stand-in compiler
# is a child process that works for several seconds. A build keeps the
# set-up budget even while other runs wait to time.
import subprocess
import sys

import torch


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)
        self.built = False

    def forward(self, x, w):
        if not self.built:
            subprocess.run([sys.executable, "-c", "import time; time.sleep(8)"], check=True)
            self.built = True
        return torch.relu(torch.matmul(x, w) + self.bias)
