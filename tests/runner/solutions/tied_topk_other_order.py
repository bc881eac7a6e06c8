# Honest: the top k of each row, ties broken the other way round (the
# highest index first), as another correct kernel may break them.
import torch


class Model(torch.nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def forward(self, x):
        n = x.shape[-1]
        values, flipped = torch.topk(torch.flip(x, dims=[-1]), self.k, dim=-1)
        return values, (n - 1) - flipped
