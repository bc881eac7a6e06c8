# Wrong: the right values, and for each row's last one an index beside the
# right one, whether it holds a tied value or not.
import torch


class Model(torch.nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def forward(self, x):
        values, indices = torch.topk(x, self.k, dim=-1)
        indices = indices.clone()
        indices[:, -1] = (indices[:, -1] + 1) % x.shape[-1]
        return values, indices
