# Its first call returns at once, and what follows never ends: like a GPU
# kernel that never finishes, which the harness waits for after forward
# returned. Here the returned tensor loops forever when the harness first
# touches it. A build happens inside forward, before it returns: this is not
# one, and it is stopped at a call's limit, not the set-up budget.
import torch


class Stall(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        while True:
            pass


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)

    def forward(self, x, w):
        return torch.relu(torch.matmul(x, w) + self.bias).as_subclass(Stall)
