"""PyTorch and Triton under the tracer, for tracer_gpu_test.cpp.

Each step runs in a call of its own, marked through the tracer's C interface
with ctypes (the way the harness does it): torch.matmul, torch.topk,
F.softmax, a Triton kernel, a CUDA graph captured in one call and replayed in
another, and a kernel on a side stream. The test then checks in the trace that
each expected kernel appears in the right call with the right launcher.
"""
import ctypes
import os
import sys

import torch
import torch.nn.functional as F
import triton
import triton.language as tl


class Calls:
    def __init__(self):
        path = os.environ.get("CUDA_INJECTION64_PATH")
        self.lib = ctypes.CDLL(path) if path else None
        if self.lib:
            self.lib.kaudit_call_begin.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                                                   ctypes.c_longlong]

    def open(self, phase, index):
        if self.lib:
            self.lib.kaudit_call_begin(phase.encode(), b"4096", b"test", index)

    def close(self):
        torch.cuda.synchronize()
        if self.lib:
            self.lib.kaudit_call_end()


@triton.jit
def kaudit_triton_scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * 3.0, mask=mask)


def triton_scale(x, y):
    n = x.numel()
    kaudit_triton_scale[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)


def main():
    if not torch.cuda.is_available():
        print("tracer_torch_app: no GPU", file=sys.stderr)
        return 3
    calls = Calls()
    dev = "cuda"
    a = torch.randn(4096, 4096, device=dev, dtype=torch.bfloat16)
    b = torch.randn(4096, 4096, device=dev, dtype=torch.bfloat16)
    v = torch.randn(64, 4096, device=dev)
    x = torch.randn(1 << 20, device=dev)
    y = torch.empty_like(x)
    # Warm-up outside any call: compiles the Triton kernel and its launcher,
    # loads cuBLASLt.
    triton_scale(x, y)
    torch.matmul(a, b)
    torch.cuda.synchronize()

    calls.open("matmul", 1)
    c = torch.matmul(a, b)
    calls.close()

    calls.open("topk", 2)
    values, indices = torch.topk(v, 16, dim=1)
    calls.close()

    calls.open("softmax", 3)
    s = F.softmax(v, dim=1)
    calls.close()

    calls.open("triton", 4)
    triton_scale(x, y)
    calls.close()

    # A CUDA graph of one ATen kernel and one Triton kernel: captured in
    # call 5 (nothing runs), replayed in call 6.
    static_in = torch.randn(1 << 20, device=dev)
    static_out = torch.empty_like(static_in)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        torch.mul(static_in, 2.0, out=static_out)
        triton_scale(static_in, static_out)
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    calls.open("graph_capture", 5)
    with torch.cuda.graph(graph):
        torch.mul(static_in, 2.0, out=static_out)
        triton_scale(static_out, static_out)
    calls.close()

    calls.open("graph_replay", 6)
    graph.replay()
    calls.close()

    # A kernel on a side stream.
    stream = torch.cuda.Stream()
    calls.open("side_stream", 7)
    with torch.cuda.stream(stream):
        z = x + 1.0
    calls.close()

    # The submission timing itself: a read of two CUDA events inside a call
    # (timer_reads), as no harness does.
    calls.open("self_timing", 8)
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    triton_scale(x, y)
    end.record()
    end.synchronize()
    elapsed = start.elapsed_time(end)
    calls.close()

    print("tracer_torch_app: done", elapsed > 0, float(c[0, 0]), float(values[0, 0]), float(s[0, 0]), float(z[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
