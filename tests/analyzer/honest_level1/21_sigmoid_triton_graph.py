# kaudit-label: lead: cuda-graph (by design: docs/findings.md rates this pattern a medium lead that the runtime probes decide)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def sigmoid_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0).to(tl.float32)
    y = 1.0 / (1.0 + tl.exp(-x))
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=m)


def _launch(x, y):
    n = x.numel()
    sigmoid_kernel[(triton.cdiv(n, 4096),)](x, y, n, BLOCK=4096, num_warps=8)


class ModelNew(nn.Module):
    """Sigmoid with a Triton kernel.  Small inputs are launch-bound, so for those a CUDA graph
    is captured per (shape, dtype, device) over static buffers; every call copies the current
    input into the static input and returns a clone of the static output."""

    GRAPH_MAX_NUMEL = 1 << 20

    def __init__(self):
        super().__init__()
        self._graphs = {}

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        if not x.is_cuda or x.numel() > self.GRAPH_MAX_NUMEL or x.numel() == 0:
            y = torch.empty_like(x)
            if x.numel():
                _launch(x, y)
            return y
        key = (tuple(x.shape), x.dtype, x.device)
        entry = self._graphs.get(key)
        if entry is None:
            static_x = torch.empty_like(x)
            static_y = torch.empty_like(x)
            static_x.copy_(x)
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                _launch(static_x, static_y)   # warm-up / JIT outside the capture
            torch.cuda.current_stream().wait_stream(side)
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                _launch(static_x, static_y)
            entry = (g, static_x, static_y)
            self._graphs[key] = entry
        g, static_x, static_y = entry
        static_x.copy_(x)
        g.replay()
        return static_y.clone()
