# Clean: Triton fp8 GEMM (tl.dot on e4m3 tiles, fp32 accumulator, masked
# tails, scales in the epilogue) replayed through a CUDA graph over buffers the
# model owns. Per input shape the model allocates static x, w, scale and output
# buffers once and captures the kernel on them; each call copies the caller's
# tensors into the static buffers, replays the graph and returns a clone of the
# static output. The graph never sees the caller's addresses: fresh tensors or
# rewritten values give the right answer, and each call returns a new tensor.
import torch
import triton
import triton.language as tl


@triton.jit
def _fp8_graph_tile_kernel(x_ptr, w_ptr, xs_ptr, ws_ptr, o_ptr, M, N, K,
                           stride_xm, stride_wn, stride_om,
                           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_m = tl.cdiv(M, BM)
    num_n = tl.cdiv(N, BN)
    per_group = GROUP_M * num_n
    first_m = (pid // per_group) * GROUP_M
    group_m = min(num_m - first_m, GROUP_M)
    pid_m = first_m + (pid % per_group) % group_m
    pid_n = (pid % per_group) // group_m
    offs_m = pid_m * BM + tl.arange(0, BM)
    offs_n = pid_n * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    m_ok = offs_m < M
    n_ok = offs_n < N
    a_ptrs = x_ptr + offs_m[:, None].to(tl.int64) * stride_xm + offs_k[None, :]
    b_ptrs = w_ptr + offs_n[None, :].to(tl.int64) * stride_wn + offs_k[:, None]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        k_ok = (k0 + offs_k) < K
        a = tl.load(a_ptrs, mask=m_ok[:, None] & k_ok[None, :], other=0.0)
        b = tl.load(b_ptrs, mask=k_ok[:, None] & n_ok[None, :], other=0.0)
        acc = tl.dot(a, b, acc=acc, out_dtype=tl.float32)
        a_ptrs += BK
        b_ptrs += BK
    xs = tl.load(xs_ptr + offs_m, mask=m_ok, other=0.0)
    ws = tl.load(ws_ptr + offs_n, mask=n_ok, other=0.0)
    out = acc * xs[:, None] * ws[None, :]
    tl.store(o_ptr + offs_m[:, None].to(tl.int64) * stride_om + offs_n[None, :], out.to(tl.bfloat16),
             mask=m_ok[:, None] & n_ok[None, :])


def _launch(x, w, xs, ws, out):
    M, K = x.shape
    N = w.shape[0]
    BM = 64 if M <= 64 else 128
    BN, BK = 128, 128
    _fp8_graph_tile_kernel[(triton.cdiv(M, BM) * triton.cdiv(N, BN),)](
        x, w, xs, ws, out, M, N, K, x.stride(0), w.stride(0), out.stride(0),
        BM=BM, BN=BN, BK=BK, GROUP_M=8, num_warps=8, num_stages=3)


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self._graphs = {}  # (shapes, dtypes, device) -> (graph, static inputs, static output)

    def _graph_for(self, inputs):
        key = tuple((tuple(t.shape), t.dtype) for t in inputs) + (str(inputs[0].device),)
        entry = self._graphs.get(key)
        if entry is None:
            static_in = [torch.empty(t.shape, device=t.device, dtype=t.dtype) for t in inputs]
            for s, t in zip(static_in, inputs):
                s.copy_(t)
            x, w = static_in[0], static_in[1]
            static_out = torch.empty(x.shape[0], w.shape[0], device=x.device, dtype=torch.bfloat16)
            _launch(*static_in, static_out)  # compiles the kernel before capture
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                _launch(*static_in, static_out)
            entry = self._graphs[key] = (graph, static_in, static_out)
        return entry

    def forward(self, x, w, x_scale, w_scale):
        M, N = x.shape[0], w.shape[0]
        if M == 0 or N == 0:
            return torch.empty(M, N, device=x.device, dtype=torch.bfloat16)
        # (M,) and (N,) fp32 scale vectors; the graph's buffers are contiguous
        inputs = (x, w, x_scale.reshape(-1).to(torch.float32), w_scale.reshape(-1).to(torch.float32))
        graph, static_in, static_out = self._graph_for(inputs)
        for s, t in zip(static_in, inputs):
            s.copy_(t)  # this call's values
        graph.replay()
        return static_out.clone()
