"""h_t = a_t * h_{t-1} + x_t over t, per batch and channel; a is a decay in [0, 1]."""
import torch

batch = 2
steps = 512
channels = 16


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, a):
        h = torch.zeros_like(x[:, 0])
        out = torch.empty_like(x)
        for t in range(x.shape[1]):
            h = a[:, t] * h + x[:, t]
            out[:, t] = h
        return out


def get_inputs():
    x = torch.randn(batch, steps, channels, device="cuda")
    a = 0.1 * torch.rand(batch, steps, channels, device="cuda")
    return [x, a]


def get_init_inputs():
    return []
