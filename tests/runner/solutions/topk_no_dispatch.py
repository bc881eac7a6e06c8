# Hides a banned op from the harness's dispatch mode: torch.topk under
# no_dispatch (torch._C._DisableTorchDispatch). The op record must say it
# cannot vouch for the call, never "topk did not run".
import torch
from torch.utils._mode_utils import no_dispatch


class Model(torch.nn.Module):
    def __init__(self, batch, n, k):
        super().__init__()
        self.k = k
        self.register_buffer("_dummy", torch.zeros(1))

    def forward(self, x):
        with no_dispatch():
            return x.topk(self.k, dim=-1).values
