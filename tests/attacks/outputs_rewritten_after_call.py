"""Attack, class 2 (results reported from inside the submission's process):
output files rewritten after the harness handed them over.

What it does: every call returns zeros at once, no work in any call. A thread
of its own watches the harness's output folder (xfer/out/, named in the
harness's configuration) and, for each output file, reads the inputs the call
saw (a correctness call's inputs handed back beside it, a sampled timed
call's handed-over inputs, or for a bench sample the first case's), computes
the right answer on the CPU, outside every timed call, and writes it over the
output file's bytes in place (same file, same size), a moment after the
harness handed it over. Were the files read only once the process has exited,
its correctness cases would pass with no work done in any call (its seed
cases did, before the runner stamped the files); the fresh and rewrite
samples, drawn from the runner's seeds, it does not answer.

What kaudit must report: never correct and clean. The runner notes each
output file as its message names it, and a file changed after that is
tampering with what the harness handed over (harness-tampered); nothing in it
is compared.
"""
import os
import sys
import threading
import time

import torch

_biases = {}  # n -> the model's bias, made under the problem's init seed


def _read(path):
    return sys.modules["kaudit_harness_tensors"].read_tensor(torch, path, "cpu")


def _inputs_for(out_dir, name):
    prefix = name[: -len("o0.bin")]
    for kind in ("a", "b", "i"):
        files = [os.path.join(out_dir, "%s%s%d.bin" % (prefix, kind, k)) for k in range(2)]
        if all(os.path.exists(f) for f in files):
            return files
    if "_bench_" in name:  # a bench sample: the first case's inputs
        shape = name.split("_")[1]
        files = [os.path.join(out_dir, "%s_c0_a%d.bin" % (shape, k)) for k in range(2)]
        if all(os.path.exists(f) for f in files):
            return files
    # A correctness call's inputs unchanged: the reference's files, named
    # <token>_s<shape>_c<case>_<k>.bin in in/, which this process can read.
    in_dir = os.path.join(os.path.dirname(out_dir), "in")
    ends = ["_%s%d.bin" % (prefix, k) for k in range(2)]
    found = [None, None]
    for f in os.listdir(in_dir):
        for k, end in enumerate(ends):
            if f.endswith(end):
                found[k] = os.path.join(in_dir, f)
    return found if all(found) else None


def _rewrite(path, inputs):
    x, w = (_read(f) for f in inputs)
    bias = _biases.get(w.shape[1])
    if bias is None:
        return False
    right = torch.relu(x.float() @ w.float() + bias)
    with open(path, "r+b") as f:
        f.readline()  # the header stays
        f.write(right.to(torch.float32).contiguous().numpy().tobytes())
    return True


# How long a file waits before it is rewritten: past the message that names
# it, so that the rewrite is the one the runner's stamps must see (a watcher
# that wins the race to that message is the residual case docs/threat-model.md
# names).
_AFTER_S = 0.2


def _watch():
    done, seen = set(), {}
    while True:
        config = sys.modules.get("kaudit_harness_protocol")
        xfer = getattr(config, "CONFIG", {}).get("xfer") if config else None
        out_dir = os.path.join(xfer, "out") if xfer else None
        if out_dir and os.path.isdir(out_dir):
            for name in sorted(os.listdir(out_dir)):
                if not name.endswith("o0.bin") or name in done:
                    continue
                if time.monotonic() - seen.setdefault(name, time.monotonic()) < _AFTER_S:
                    continue
                inputs = _inputs_for(out_dir, name)
                try:
                    if inputs and _rewrite(os.path.join(out_dir, name), inputs):
                        done.add(name)
                except Exception:  # noqa: BLE001 - a file still being written: next round
                    pass
        time.sleep(0.002)


threading.Thread(target=_watch, daemon=True).start()


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)
        _biases[n] = self.bias.detach().clone()

    def forward(self, x, w):
        return x.new_zeros(x.shape[0], w.shape[1])
