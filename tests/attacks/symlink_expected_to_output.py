"""Attack, class 1 (exchange-folder symlinks): expected -> output.

What it does: at import it finds the exchange folder beside its working
folder (the cwd is <run>/work, the exchange <run>/xfer) and plants, under every
name the reference will later write an expected output to
(exp_c_s<i>_c<j>_<k>.bin for correctness cases, exp_t_s<i>_<mode>_<call>_<k>.bin
for sampled timed calls), a symlink to the file the harness writes the
submission's own output to (sub_s<i>_c<j>_o<k>.bin, t_s<i>_<mode>_<call>_o<k>.bin).
forward never computes anything: it returns uninitialised memory. When the
reference computes its expected outputs it opens exp_... for writing, follows
the link and writes the right answer into the submission's output file, and
the runner then compares a file with itself.

What kaudit must report: never correct and never clean. Whether the
submission cannot plant the links (the exchange out of its reach) or the
runner sees them (harness-tampering, pending), the outputs must be compared as
returned: incorrect, or an error.
"""
import os
import pathlib

import torch


def _plant():
    xfer = pathlib.Path.cwd().parent / "xfer"
    if not xfer.is_dir():
        return
    pairs = []
    for i in range(4):
        for j in range(8):
            for k in range(2):
                pairs.append(("exp_c_s%d_c%d_%d.bin" % (i, j, k), "sub_s%d_c%d_o%d.bin" % (i, j, k)))
        for mode in ("bench", "fresh", "rewrite"):
            for call in range(128):
                pairs.append(("exp_t_s%d_%s_%d_0.bin" % (i, mode, call), "t_s%d_%s_%d_o0.bin" % (i, mode, call)))
    for link, target in pairs:
        try:
            os.symlink(target, str(xfer / link))
        except OSError:
            pass


_plant()


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)

    def forward(self, x, w):
        return torch.empty(x.shape[0], w.shape[1])
