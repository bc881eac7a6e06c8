# Benchmark-aware: computes both outputs every call, but writes them into the
# same two buffers each time and returns those (a reused output, twice a call).
import torch


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)
        self.buffers_by_shape = {}

    def forward(self, x, w):
        key = (tuple(x.shape), tuple(w.shape))
        if key not in self.buffers_by_shape:
            rows, n = x.shape[0], w.shape[1]
            self.buffers_by_shape[key] = (torch.empty(rows, n, dtype=x.dtype), torch.empty(rows, n, dtype=x.dtype))
        a, b = self.buffers_by_shape[key]
        y = torch.relu(torch.matmul(x, w) + self.bias)
        a.copy_(y)
        b.copy_(y * 2)
        return a, b
