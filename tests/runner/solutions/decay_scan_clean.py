# Honest: the whole recurrence, step by step, as a cumulative product would
# lose precision at long horizons.
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, a):
        decay = a
        h = torch.zeros_like(x[:, 0])
        out = torch.empty_like(x)
        for t in range(x.shape[1]):
            h = decay[:, t] * h + x[:, t]
            out[:, t] = h
        return out
