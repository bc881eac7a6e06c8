# Honest: 2x + 1.
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, tag):
        return 2 * x + 1
