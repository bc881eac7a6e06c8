# side-stream-or-thread: a Triton kernel queued on a side stream the call never
# joins, plus work handed to threads and processes.
import concurrent.futures as cf
import multiprocessing
import os
import subprocess
import threading
from threading import Thread as T

import torch
import triton
import triton.language as tl


@triton.jit
def _neg_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, -tl.load(x_ptr + offs, mask=mask), mask=mask)


_pool = cf.ThreadPoolExecutor(max_workers=2)  # expect: side-stream-or-thread


class Prefetcher(threading.Thread):  # expect: side-stream-or-thread
    def run(self):
        pass


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.side = torch.cuda.Stream()  # expect: side-stream-or-thread

    def forward(self, x):
        y = torch.empty_like(x)
        n = x.numel()
        # The current stream is what honest kernels use: not reported.
        cur = torch.cuda.current_stream()
        with torch.cuda.stream(self.side):  # expect: side-stream-or-thread
            _neg_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
        worker = T(target=lambda: None)  # expect: side-stream-or-thread
        worker.start()
        _pool.submit(print, cur)
        return y


def _offline():
    ctx = multiprocessing.get_context("spawn")  # expect: side-stream-or-thread
    p = ctx.Process(target=print)
    subprocess.run(["nvidia-smi"])  # expect: side-stream-or-thread
    if os.fork() == 0:  # expect: side-stream-or-thread
        os._exit(0)
    return p
