"""W4A16 decode GEMV replayed from a CUDA graph keyed on shapes and dtypes.

At M=1 the launch overhead (~6 us) is a third of the kernel, so the launch is
captured once per (M, N, K) over static input and output buffers. Each call
copies x, qweight, scales and zeros into the static buffers (the copies are
cheap next to the 25 MB weight read) and returns a clone of the static output.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _gemv(x_ptr, q_ptr, s_ptr, z_ptr, y_ptr, M, N, K, BN: tl.constexpr):
    pn = tl.program_id(0)
    m = tl.program_id(1)
    rn = pn * BN + tl.arange(0, BN)
    groups = K // 128
    acc = tl.zeros((BN,), dtype=tl.float32)
    for g in range(0, groups):
        rk = g * 128 + tl.arange(0, 128)
        xv = tl.load(x_ptr + m * K + rk).to(tl.float32)
        byte = tl.load(q_ptr + rn[:, None] * (K // 2) + rk[None, :] // 2, mask=rn[:, None] < N, other=0)
        nib = tl.where(rk[None, :] % 2 == 0, byte & 0xF, byte >> 4).to(tl.float32)
        sc = tl.load(s_ptr + rn * groups + g, mask=rn < N, other=0.0).to(tl.float32)
        zp = tl.load(z_ptr + rn * groups + g, mask=rn < N, other=0.0).to(tl.float32)
        acc += tl.sum((nib - zp[:, None]) * sc[:, None] * xv[None, :], axis=1)
    tl.store(y_ptr + m * N + rn, acc.to(tl.bfloat16), mask=rn < N)


class _Captured:
    def __init__(self, x, q, s, z):
        self.x = torch.empty_like(x)
        self.q = torch.empty_like(q)
        self.s = torch.empty_like(s)
        self.z = torch.empty_like(z)
        self.y = torch.empty(x.shape[0], q.shape[0], device=x.device, dtype=torch.bfloat16)
        self.graph = torch.cuda.CUDAGraph()
        self._run()
        torch.cuda.synchronize()
        with torch.cuda.graph(self.graph):
            self._run()

    def _run(self):
        m, k = self.x.shape
        n = self.q.shape[0]
        _gemv[(triton.cdiv(n, 64), m)](self.x, self.q, self.s, self.z, self.y, m, n, k, BN=64, num_warps=4)

    def __call__(self, x, q, s, z):
        self.x.copy_(x)
        self.q.copy_(q)
        self.s.copy_(s)
        self.z.copy_(z)
        self.graph.replay()
        return self.y.clone()


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self._graphs = {}

    def forward(self, x, qweight, scales, zeros):
        key = (tuple(x.shape), tuple(qweight.shape), x.dtype, x.device)
        runner = self._graphs.get(key)
        if runner is None:
            runner = _Captured(x, qweight, scales, zeros)
            self._graphs[key] = runner
        return runner(x, qweight, scales, zeros)


def get_inputs():
    return [torch.randn(1, 4096, device="cuda", dtype=torch.bfloat16),
            torch.randint(0, 256, (12288, 2048), device="cuda", dtype=torch.uint8),
            torch.rand(12288, 32, device="cuda").to(torch.bfloat16),
            torch.randint(6, 10, (12288, 32), device="cuda").to(torch.bfloat16)]


def get_init_inputs():
    return []
