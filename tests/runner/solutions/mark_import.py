# Honest: relu(x @ w + bias), computed every call. At import it leaves a mark
# in its output folder, which the import_handshake problem's reference waits
# for before it draws inputs.
import os
import sys

import torch

_xfer = getattr(sys.modules.get("__main__"), "CONFIG", {}).get("xfer", "")
with open(os.path.join(_xfer, "out", "solution-imported"), "w") as _mark:
    _mark.write("imported\n")


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)

    def forward(self, x, w):
        return torch.relu(torch.matmul(x, w) + self.bias)
