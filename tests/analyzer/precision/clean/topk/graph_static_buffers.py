"""Top-k for the small-batch shapes, replayed from a CUDA graph.

The batch=1 and batch=128/k=1 shapes are launch-bound (3 launches, ~9 us of
host time against ~4 us of GPU time), so the three launches are captured once
per (shape, k) into a graph over static buffers. Every call copies the caller's
values into the static input, replays, and returns clones of the static
outputs, so new values (or new tensors at the same address) are always read.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _partial(x_ptr, pv_ptr, pi_ptr, n, n_parts, K: tl.constexpr, PART: tl.constexpr):
    row = tl.program_id(0)
    p = tl.program_id(1)
    offs = p * PART + tl.arange(0, PART)
    v = tl.load(x_ptr + row.to(tl.int64) * n + offs, mask=offs < n, other=float("-inf"))
    base = (row * n_parts + p) * K
    for j in tl.static_range(K):
        m = tl.max(v, axis=0)
        a = tl.min(tl.where(v == m, offs, 2147483647), axis=0)
        tl.store(pv_ptr + base + j, m)
        tl.store(pi_ptr + base + j, a)
        v = tl.where(offs == a, float("-inf"), v)


@triton.jit
def _final(pv_ptr, pi_ptr, v_ptr, i_ptr, total, K: tl.constexpr, P: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, P)
    v = tl.load(pv_ptr + row * total + offs, mask=offs < total, other=float("-inf"))
    ix = tl.load(pi_ptr + row * total + offs, mask=offs < total, other=2147483647)
    for j in tl.static_range(K):
        m = tl.max(v, axis=0)
        a = tl.min(tl.where(v == m, ix, 2147483647), axis=0)
        tl.store(v_ptr + row * K + j, m)
        tl.store(i_ptr + row * K + j, a.to(tl.int64))
        v = tl.where((v == m) & (ix == a), float("-inf"), v)


class _Plan:
    def __init__(self, rows, n, k, device):
        self.part = 4096
        self.n_parts = triton.cdiv(n, self.part)
        self.x = torch.empty(rows, n, device=device, dtype=torch.float32)
        self.pv = torch.empty(rows, self.n_parts * k, device=device, dtype=torch.float32)
        self.pi = torch.empty(rows, self.n_parts * k, device=device, dtype=torch.int32)
        self.values = torch.empty(rows, k, device=device, dtype=torch.float32)
        self.indices = torch.empty(rows, k, device=device, dtype=torch.int64)
        self.rows, self.n, self.k = rows, n, k
        self.graph = None

    def launch(self):
        _partial[(self.rows, self.n_parts)](self.x, self.pv, self.pi, self.n, self.n_parts, K=self.k,
                                            PART=self.part, num_warps=8)
        _final[(self.rows,)](self.pv, self.pi, self.values, self.indices, self.n_parts * self.k, K=self.k,
                             P=max(16, triton.next_power_of_2(self.n_parts * self.k)), num_warps=4)

    def capture(self):
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            self.launch()  # compile outside the capture
        torch.cuda.current_stream().wait_stream(stream)
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph):
            self.launch()


class Model(nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k
        self._plans = {}

    def forward(self, x):
        rows, n = x.shape
        key = (rows, n, x.device.index)
        plan = self._plans.get(key)
        if plan is None:
            plan = _Plan(rows, n, self.k, x.device)
            plan.capture()
            self._plans[key] = plan
        plan.x.copy_(x)
        plan.graph.replay()
        return plan.values.clone(), plan.indices.clone()


def get_inputs():
    return [torch.randn(64, 8192, device="cuda")]


def get_init_inputs():
    return [8]
