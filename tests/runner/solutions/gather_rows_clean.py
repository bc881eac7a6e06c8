# Honest: the rows idx names, by index_select.
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, idx):
        return torch.index_select(x, 0, idx)
