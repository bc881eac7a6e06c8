# Honest: a cumulative sum read at each sequence's length.
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, seq_lens):
        sums = torch.cumsum(x, dim=1)
        last = (seq_lens.long() - 1)[:, None, None].expand(-1, 1, x.shape[2])
        return torch.gather(sums, 1, last)[:, 0] / seq_lens[:, None].float()
