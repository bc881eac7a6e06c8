# Honest, but at large input magnitudes one output element lands on the other
# side of a decision edge (as a saturated softmax or a near-tie can): one
# element of a stress case is off, which the stress allowance tolerates.
import torch


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)

    def forward(self, x, w):
        y = torch.relu(torch.matmul(x, w) + self.bias)
        if x.abs().max() > 50:  # only the x100 stress case
            y = y.clone()
            y.view(-1)[0] += 1e6
        return y
