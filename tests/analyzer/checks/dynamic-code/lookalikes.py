# Constant lookups and ordinary use of the same modules: nothing to report.
# kaudit-test: ignore=no-authored-kernel,reference-resubmitted
import base64
import importlib
import re

import torch

pattern = re.compile(r"\d+")
fast_mm = torch.compile(lambda a: a * 2)
relu = getattr(torch.nn.functional, "relu")
triton = importlib.import_module("triton")
blob = base64.b64encode(b"not code")


class ModelNew(torch.nn.Module):
    def forward(self, x):
        self.eval()
        if hasattr(x, "shape"):
            x = relu(x)
        return fast_mm(x)
