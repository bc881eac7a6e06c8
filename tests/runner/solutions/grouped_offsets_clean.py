# Honest: each row's group weight, gathered by the offsets' bounds at once.
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, offsets, w):
        sizes = (offsets[1:] - offsets[:-1]).long()
        return x * torch.repeat_interleave(w, sizes, output_size=x.shape[0]).unsqueeze(1)
