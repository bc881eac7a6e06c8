# Cheat: rewrites the reference's input files in the exchange folder (same
# size, new bytes) when it is imported, before any call. In the sandbox the
# folder is read-only; without it the import waits until the runner has
# sealed the files, whose seal then finds the change.
import glob
import os
import sys

import torch

_xfer = getattr(sys.modules.get("__main__"), "CONFIG", {}).get("xfer")
for _path in glob.glob(os.path.join(_xfer or "", "in", "*")):
    try:
        with open(_path, "r+b") as _f:
            _f.seek(-4, os.SEEK_END)
            _f.write(b"\0\0\0\0")
    except OSError:
        pass


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)

    def forward(self, x, w):
        return torch.relu(torch.matmul(x, w) + self.bias)
