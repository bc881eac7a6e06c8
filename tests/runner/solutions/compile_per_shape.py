# Honest, and compiles the way Triton and load_inline do: the first call of
# every new shape (the graded shapes and the runner's off-grid probe shapes
# alike) starts compiler processes, one from a helper thread, before it
# computes from the current inputs.
import subprocess
import sys
import threading

import torch

_COMPILE = [sys.executable, "-c", "import sys; sys.stdout.write('ptxas stand-in')"]


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)
        self.compiled = set()

    def forward(self, x, w):
        shape = (tuple(x.shape), tuple(w.shape))
        if shape not in self.compiled:
            subprocess.run(_COMPILE, check=True, capture_output=True)
            helper = threading.Thread(target=subprocess.run, args=(_COMPILE,), kwargs={"capture_output": True})
            helper.start()
            helper.join()
            self.compiled.add(shape)
        return torch.relu(torch.matmul(x, w) + self.bias)
