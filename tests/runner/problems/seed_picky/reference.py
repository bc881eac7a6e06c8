"""2x + 1; the reference refuses inputs not drawn from seeds 1000 to 1002."""
import torch

n = 4096


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, tag):
        if float(tag.item()) == 0.0:
            raise RuntimeError("inputs not drawn from a correctness seed")
        return 2 * x + 1


def get_inputs():
    x = torch.randn(n, device="cuda")
    tag = torch.tensor(1.0 if torch.initial_seed() in (1000, 1001, 1002) else 0.0, device="cuda")
    return [x, tag]


def get_init_inputs():
    return []
