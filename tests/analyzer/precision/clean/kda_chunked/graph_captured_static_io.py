"""KDA chunked forward, both passes captured in one CUDA graph per shape.

The two-kernel pipeline (intra-chunk solve, inter-chunk scan) is captured
over static input and output tensors keyed on shapes; every call copies the
five inputs into the static ones, replays and returns a clone of the output.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _solve(k_ptr, v_ptr, g_ptr, beta_ptr, u_ptr, gl_ptr, T, H, NC, K: tl.constexpr, V: tl.constexpr,
           C: tl.constexpr):
    bh = tl.program_id(0)
    c = tl.program_id(1)
    b = bh // H
    h = bh % H
    r = tl.arange(0, C)
    t = c * C + r
    ok = t < T
    base = (b * T + t) * H + h
    ck = tl.arange(0, K)
    cv = tl.arange(0, V)
    k = tl.load(k_ptr + base[:, None] * K + ck[None, :], mask=ok[:, None], other=0.0).to(tl.float32)
    v = tl.load(v_ptr + base[:, None] * V + cv[None, :], mask=ok[:, None], other=0.0).to(tl.float32)
    G = tl.cumsum(tl.load(g_ptr + base[:, None] * K + ck[None, :], mask=ok[:, None], other=0.0), axis=0)
    beta = tl.load(beta_ptr + base, mask=ok, other=0.0)
    A = tl.where(r[:, None] > r[None, :], tl.dot(k * tl.exp(G), tl.trans(k * tl.exp(-G))), 0.0) * beta[:, None]
    U = beta[:, None] * v
    for _ in tl.static_range(6):
        U = beta[:, None] * v - tl.dot(A, U)
    slot = (bh * NC + c) * C + r
    tl.store(u_ptr + slot[:, None] * V + cv[None, :], U)
    tl.store(gl_ptr + slot[:, None] * K + ck[None, :], G)


@triton.jit
def _scan(q_ptr, k_ptr, u_ptr, gl_ptr, o_ptr, T, H, NC, scale, K: tl.constexpr, V: tl.constexpr, C: tl.constexpr):
    bh = tl.program_id(0)
    b = bh // H
    h = bh % H
    r = tl.arange(0, C)
    ck = tl.arange(0, K)
    cv = tl.arange(0, V)
    S = tl.zeros((K, V), tl.float32)
    for c in range(0, NC):
        t = c * C + r
        ok = t < T
        base = (b * T + t) * H + h
        slot = (bh * NC + c) * C + r
        q = tl.load(q_ptr + base[:, None] * K + ck[None, :], mask=ok[:, None], other=0.0).to(tl.float32) * scale
        k = tl.load(k_ptr + base[:, None] * K + ck[None, :], mask=ok[:, None], other=0.0).to(tl.float32)
        G = tl.load(gl_ptr + slot[:, None] * K + ck[None, :])
        U = tl.load(u_ptr + slot[:, None] * V + cv[None, :]) - tl.dot(k * tl.exp(G), S)
        qg = q * tl.exp(G)
        o = tl.dot(qg, S) + tl.dot(tl.where(r[:, None] >= r[None, :], tl.dot(qg, tl.trans(k * tl.exp(-G))), 0.0), U)
        tl.store(o_ptr + base[:, None] * V + cv[None, :], o.to(tl.bfloat16), mask=ok[:, None])
        last = tl.sum(tl.where(r[:, None] == C - 1, G, 0.0), axis=0)
        S = tl.exp(last)[:, None] * S + tl.dot(tl.trans(k * tl.exp(last[None, :] - G)), U)


class _Graph:
    def __init__(self, q, k, v, g, beta):
        self.inputs = [t.clone() for t in (q, k, v, g, beta)]
        b, t, h, dk = q.shape
        dv = v.shape[-1]
        self.nc = triton.cdiv(t, 64)
        self.u = torch.empty(b * h * self.nc * 64, dv, device=q.device, dtype=torch.float32)
        self.gl = torch.empty(b * h * self.nc * 64, dk, device=q.device, dtype=torch.float32)
        self.o = torch.empty(b, t, h, dv, device=q.device, dtype=v.dtype)
        self.graph = torch.cuda.CUDAGraph()
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            self._launch()
        torch.cuda.current_stream().wait_stream(s)
        with torch.cuda.graph(self.graph):
            self._launch()

    def _launch(self):
        q, k, v, g, beta = self.inputs
        b, t, h, dk = q.shape
        dv = v.shape[-1]
        _solve[(b * h, self.nc)](k, v, g, beta, self.u, self.gl, t, h, self.nc, K=dk, V=dv, C=64, num_warps=8)
        _scan[(b * h,)](q, k, self.u, self.gl, self.o, t, h, self.nc, dk ** -0.5, K=dk, V=dv, C=64, num_warps=8)

    def __call__(self, *args):
        for dst, src in zip(self.inputs, args):
            dst.copy_(src)
        self.graph.replay()
        return self.o.clone()


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self._graphs = {}

    def forward(self, q, k, v, g, beta):
        key = tuple(tuple(t.shape) for t in (q, k, v, g, beta))
        if key not in self._graphs:
            self._graphs[key] = _Graph(q, k, v, g, beta)
        return self._graphs[key](q, k, v, g, beta)


def get_inputs():
    q = torch.randn(2, 4096, 16, 128, device="cuda").to(torch.bfloat16)
    return [q, q.clone(), q.clone(), -torch.rand(2, 4096, 16, 128, device="cuda") * 0.3,
            torch.rand(2, 4096, 16, device="cuda")]


def get_init_inputs():
    return []
