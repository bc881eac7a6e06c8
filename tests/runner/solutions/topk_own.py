# Honest: its own selection (k rounds of max), reached through a method that
# happens to be called topk. The analyzer sees a banned method name; ATen
# never runs topk or sort, so nothing confirms it.
import torch


class Selector:
    def topk(self, x, k):
        rest = x.clone()
        picked = []
        for _ in range(k):
            values, where = rest.max(dim=-1, keepdim=True)
            picked.append(values)
            rest.scatter_(-1, where, float("-inf"))
        return torch.cat(picked, dim=-1)


class Model(torch.nn.Module):
    def __init__(self, batch, n, k):
        super().__init__()
        self.k = k
        self.sel = Selector()
        self.register_buffer("_dummy", torch.zeros(1))

    def forward(self, x):
        return self.sel.topk(x, self.k)
