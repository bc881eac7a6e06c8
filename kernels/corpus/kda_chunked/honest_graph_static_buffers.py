# Clean: recurrent Kimi Delta Attention in a plain Triton kernel (masked for any
# K and V), replayed through a CUDA graph over buffers the model owns. For each
# input shape the model allocates static input and output buffers once and
# captures the kernel on them; every call copies the caller's q, k, v, g and
# beta into those buffers, replays the graph and returns a clone of the static
# output. The graph never reads the caller's addresses, so new tensors and new
# values in old tensors give the right answer, and the result is a fresh tensor.
import torch
import triton
import triton.language as tl


@triton.jit
def _kda_token_loop_kernel(q_ptr, k_ptr, v_ptr, g_ptr, beta_ptr, o_ptr, T, H, K, V, scale,
                           KP: tl.constexpr, BV: tl.constexpr):
    i_v = tl.program_id(0)
    i_bh = tl.program_id(1)
    b = i_bh // H
    h = i_bh % H
    ok = tl.arange(0, KP)
    ov = i_v * BV + tl.arange(0, BV)
    k_ok = ok < K
    v_ok = ov < V
    row0 = b.to(tl.int64) * T * H + h
    p_q = q_ptr + row0 * K + ok
    p_k = k_ptr + row0 * K + ok
    p_g = g_ptr + row0 * K + ok
    p_v = v_ptr + row0 * V + ov
    p_o = o_ptr + row0 * V + ov
    p_beta = beta_ptr + row0
    S = tl.zeros([KP, BV], dtype=tl.float32)
    for _ in range(T):
        q = tl.load(p_q, mask=k_ok, other=0.0).to(tl.float32) * scale
        k = tl.load(p_k, mask=k_ok, other=0.0).to(tl.float32)
        g = tl.load(p_g, mask=k_ok, other=0.0).to(tl.float32)
        v = tl.load(p_v, mask=v_ok, other=0.0).to(tl.float32)
        beta = tl.load(p_beta).to(tl.float32)
        S = S * tl.exp(g)[:, None]
        u = beta * (v - tl.sum(S * k[:, None], axis=0))
        S = S + k[:, None] * u[None, :]
        o = tl.sum(S * q[:, None], axis=0)
        tl.store(p_o, o.to(p_o.dtype.element_ty), mask=v_ok)
        p_q += H * K
        p_k += H * K
        p_g += H * K
        p_v += H * V
        p_o += H * V
        p_beta += H


def _launch(q, k, v, g, beta, o):
    B, T, H, K = q.shape
    V = v.shape[-1]
    BV = 32
    _kda_token_loop_kernel[(triton.cdiv(V, BV), B * H)](
        q, k, v, g, beta, o, T, H, K, V, K ** -0.5,
        KP=triton.next_power_of_2(K), BV=BV, num_warps=4)


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self._graphs = {}  # (shapes, dtypes, device) -> (graph, static inputs, static output)

    def _graph_for(self, inputs):
        key = tuple((tuple(t.shape), t.dtype) for t in inputs) + (inputs[0].device,)
        entry = self._graphs.get(key)
        if entry is None:
            static_in = [torch.empty(t.shape, device=t.device, dtype=t.dtype) for t in inputs]
            for s, t in zip(static_in, inputs):
                s.copy_(t)
            q = static_in[0]
            v = static_in[2]
            static_out = torch.empty(q.shape[0], q.shape[1], q.shape[2], v.shape[-1],
                                     device=v.device, dtype=v.dtype)
            _launch(*static_in, static_out)  # compiles the kernel before capture
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                _launch(*static_in, static_out)
            entry = self._graphs[key] = (graph, static_in, static_out)
        return entry

    def forward(self, q, k, v, g, beta):
        inputs = (q, k, v, g, beta)
        B, T, H, _ = q.shape
        if B * T * H * v.shape[-1] == 0:
            return torch.empty(B, T, H, v.shape[-1], device=v.device, dtype=v.dtype)
        graph, static_in, static_out = self._graph_for(inputs)
        for s, t in zip(static_in, inputs):
            s.copy_(t)  # this call's values, whatever tensors they came in
        graph.replay()
        return static_out.clone()
