# Configuring the environment and ordinary strings: nothing to report.
# kaudit-test: ignore=no-authored-kernel,reference-resubmitted
"""Mentions benchmark.py in a docstring, which is prose, not a probe."""
import os

import torch

os.environ["TORCH_CUDA_ARCH_LIST"] = "9.0"
os.environ.setdefault("CUDA_DEVICE_MAX_CONNECTIONS", "1")
MODE = "eval"


class ModelNew(torch.nn.Module):
    def forward(self, x):
        self.eval()
        name = "checkpoint_loader"
        return x * 2
