"""Targets that misbehave under the tracer, for tracer_gpu_test.cpp.

    python3 tracer_faults.py MODE

segfault   launches kernels, flushes, then dereferences NULL
os_exit    launches kernels, then leaves through os._exit(0) (no exit handlers)
fork       uses CUDA, forks a child that exits, keeps launching in the parent
spawn      starts a second Python process that uses CUDA too
profiler   runs torch.profiler (a second CUPTI client) around some kernels
no_gpu     hides the GPU (CUDA_VISIBLE_DEVICES="" is set by the test)

The tracer must never hang or crash these, and the trace must say what it
could not see.
"""
import ctypes
import os
import subprocess
import sys

import torch


def work(n=8):
    x = torch.ones(1 << 16, device="cuda")
    for _ in range(n):
        x = x * 1.5 + 1.0
    torch.cuda.synchronize()
    return x


def tracer():
    path = os.environ.get("CUDA_INJECTION64_PATH")
    return ctypes.CDLL(path) if path else None


def main(mode):
    if mode == "no_gpu":
        print("cuda available:", torch.cuda.is_available())
        return 0
    if mode == "segfault":
        work()
        lib = tracer()
        if lib:
            lib.kaudit_tracer_flush()
        ctypes.string_at(0)  # SIGSEGV
        return 0
    if mode == "os_exit":
        work()
        sys.stdout.flush()
        os._exit(0)
    if mode == "fork":
        work()
        pid = os.fork()
        if pid == 0:
            # CUDA cannot be used here; exit normally so that exit handlers run.
            sys.exit(0)
        _, status = os.waitpid(pid, 0)
        work(4)
        return 0 if os.waitstatus_to_exitcode(status) == 0 else 1
    if mode == "spawn":
        work()
        child = subprocess.run([sys.executable, "-c",
                                "import torch; x = torch.ones(1024, device='cuda'); print(float((x * 2).sum()))"])
        return child.returncode
    if mode == "profiler":
        work()
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            work()
        work()
        print("profiler saw", len(prof.events()), "events")
        return 0
    print("unknown mode", mode, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
