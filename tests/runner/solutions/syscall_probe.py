# Clean, but at import it tries the system calls a submission never needs and
# that widen what it could reach of the kernel: a user namespace of its own
# (unshare, clone with a namespace flag), eBPF, userfaultfd, io_uring, ptrace
# and a second process's memory. It prints what each returned to stderr, for
# the test to read: with the sandbox's syscall filter each is refused.
import ctypes
import errno
import os
import sys

import torch

_libc = ctypes.CDLL(None, use_errno=True)
_NR = {"bpf": 321, "userfaultfd": 323, "io_uring_setup": 425, "ptrace": 101, "process_vm_readv": 310,
       "keyctl": 250, "clone3": 435}
_CLONE_NEWUSER = 0x10000000
_SIGCHLD = 17


def _outcome(ret):
    return "ok" if ret >= 0 else errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))


def _probe():
    got = {"unshare_user": _outcome(_libc.unshare(_CLONE_NEWUSER))}
    # clone(CLONE_NEWUSER | SIGCHLD): a child in a new user namespace; it exits at once.
    pid = _libc.syscall(56, _CLONE_NEWUSER | _SIGCHLD, 0, 0, 0, 0)
    if pid == 0:
        os._exit(0)
    got["clone_newuser"] = _outcome(pid)
    if pid > 0:
        os.waitpid(pid, 0)
    got["bpf"] = _outcome(_libc.syscall(_NR["bpf"], 0, 0, 0))
    got["userfaultfd"] = _outcome(_libc.syscall(_NR["userfaultfd"], 0))
    got["io_uring_setup"] = _outcome(_libc.syscall(_NR["io_uring_setup"], 1, ctypes.create_string_buffer(120)))
    # PTRACE_ATTACH to a process that does not exist: ESRCH when allowed.
    got["ptrace"] = _outcome(_libc.syscall(_NR["ptrace"], 16, 0x3FFFFFFF, 0, 0))
    # Nothing to read from its own memory: 0 when allowed.
    got["process_vm_readv"] = _outcome(_libc.syscall(_NR["process_vm_readv"], os.getpid(), 0, 0, 0, 0, 0))
    got["keyctl"] = _outcome(_libc.syscall(_NR["keyctl"], 0, -3, 0))  # KEYCTL_GET_KEYRING_ID, the session's
    got["clone3"] = _outcome(_libc.syscall(_NR["clone3"], 0, 0))  # EINVAL when allowed (no arguments)
    got["fork"] = "ok" if _fork_works() else "failed"
    sys.stderr.write("kaudit-syscall-probe " + " ".join(f"{k}={v}" for k, v in sorted(got.items())) + "\n")
    sys.stderr.flush()


def _fork_works():
    pid = os.fork()
    if pid == 0:
        os._exit(7)
    _, status = os.waitpid(pid, 0)
    return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 7


if os.uname().machine == "x86_64":
    _probe()


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)

    def forward(self, x, w):
        return torch.relu(x @ w + self.bias)
