"""Attack, class 6 (escaped processes): a daemon reads the reference's answer
by hard-linking each expected output over the submission's own output.

What it does: forward returns uninitialised memory every call. At import it
starts a daemon (double fork, setsid, descriptors closed) that survives the
kill of the run's process group and watches the exchange folder (<run>/xfer,
beside its cwd <run>/work) every millisecond. The expected outputs exist only
after the submission's process has exited; as soon as one appears
(exp_c_s<i>_c<j>_<k>.bin or exp_t_s<i>_<mode>_<call>_<k>.bin), even empty, the
daemon hard-links it to a temporary name and renames that over the matching
output of the submission (sub_s<i>_c<j>_o<k>.bin, t_s<i>_<mode>_<call>_o<k>.bin):
both names are now one inode, and whatever the reference writes is what the
runner reads as the submission's answer. It gives up after 60 s or when the
exchange folder goes away.

What kaudit must report: never correct, never clean (incorrect, or an error);
no process of the submission outlives its run. Where the daemon still gets to
the exchange, the change is tampering (harness-tampering, pending).
"""
import os
import re
import time

import torch

_PATTERN = re.compile(r"^exp_(c_s(\d+)_c(\d+)|t_s(\d+)_([a-z]+)_(\d+))_(\d+)\.bin$")


def _output_name(m):
    if m.group(2) is not None:
        return "sub_s%s_c%s_o%s.bin" % (m.group(2), m.group(3), m.group(7))
    return "t_s%s_%s_%s_o%s.bin" % (m.group(4), m.group(5), m.group(6), m.group(7))


def _daemon(xfer):
    done = set()
    deadline = time.time() + 60
    while time.time() < deadline and os.path.isdir(xfer):
        try:
            names = os.listdir(xfer)
        except OSError:
            break
        for name in names:
            m = _PATTERN.match(name)
            if not m or name in done:
                continue
            done.add(name)
            tmp = os.path.join(xfer, ".l_" + name)
            try:
                os.link(os.path.join(xfer, name), tmp)
                os.rename(tmp, os.path.join(xfer, _output_name(m)))
            except OSError:
                pass
        time.sleep(0.001)


def _spawn():
    xfer = os.path.join(os.path.dirname(os.getcwd()), "xfer")
    if not os.path.isdir(xfer) or os.fork():
        return
    try:
        os.setsid()
        if os.fork():
            os._exit(0)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.closerange(3, 4096)
        _daemon(xfer)
    finally:
        os._exit(0)


_spawn()


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)

    def forward(self, x, w):
        return torch.empty(x.shape[0], w.shape[1])
