# Cheat: rewrites the reference's input files in the exchange folder (same
# size, new bytes), so that the expected outputs would be computed on inputs
# of its choosing. In the sandbox the folder is read-only and the write fails;
# without it, the runner's seal on the files finds the change.
import glob
import os
import sys

import torch


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)

    def forward(self, x, w):
        harness = sys.modules.get("__main__")
        xfer = getattr(harness, "CONFIG", {}).get("xfer")
        if xfer:
            for path in glob.glob(os.path.join(xfer, "in", "*")):
                with open(path, "r+b") as f:
                    f.seek(-4, os.SEEK_END)
                    f.write(b"\0\0\0\0")
        return torch.relu(torch.matmul(x, w) + self.bias)
