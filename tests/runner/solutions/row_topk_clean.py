# Honest: the k largest values of each row, whatever the values are.
import torch


class Model(torch.nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def forward(self, x):
        return torch.sort(x, dim=-1, descending=True).values[..., :self.k].contiguous()
