# Settings, own objects and local names that happen to match: nothing to report.
# kaudit-test: ignore=no-authored-kernel,reference-resubmitted,precision-lowered
import types

import torch

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.benchmark = True
torch._dynamo.config.cache_size_limit = 64

check = types.SimpleNamespace()
check.enabled = True
config = {}
config["block"] = 128


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = 2.0
        setattr(self, "bias", torch.nn.Parameter(torch.zeros(4)))

    def forward(self, x):
        out = torch.empty_like(x)
        out[:] = x * self.scale
        return out
