# CUDA graphs, plain and keyed on input pointers.
# kaudit-test: ignore=no-authored-kernel,reference-resubmitted
import torch


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.graphs = {}
        self.static_in = None

    def forward(self, x):
        key = x.data_ptr()
        if key not in self.graphs:
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):  # expect: cuda-graph
                out = x * 2
            self.graphs[key] = (g, out)
        g, out = self.graphs[key]
        g.replay()  # expect: cuda-graph
        return out


class Graphed(torch.nn.Module):
    def __init__(self, inner):
        super().__init__()
        self.inner = torch.cuda.make_graphed_callables(inner, (torch.randn(8),))  # expect: cuda-graph

    def run(self, x):
        return self.inner(x)


compiled = torch.compile(lambda t: t + 1, mode="reduce-overhead")  # expect: cuda-graph
tuned = torch.compile(lambda t: t + 1, mode="max-autotune-no-cudagraphs")


class Replayer:
    def __init__(self):
        self.recorder = object()

    def go(self):
        self.recorder.replay()
