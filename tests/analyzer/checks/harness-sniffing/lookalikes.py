# Configuring the environment and ordinary strings (a benchmark's name as a label): nothing to report.
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
        if not x.is_floating_point():
            raise TypeError("KernelBench ReLU kernel expects a floating-point tensor")
        return x * 2


# A benchmark's name given to a build or a log is a label, not a probe.
EXT_NAME = "kernelbench_level1_selu"
BUILD = dict(name="kernelbench_level1_relu", verbose=False)
BUILD_NAME = BUILD.get("kernelbench_name", EXT_NAME)


# A knob that only narrows an autotuner's candidates picks a configuration.
import triton  # noqa: E402

MAX_WARPS = int(os.environ.get("RELU_TRITON_MAX_WARPS", "8"))  # expect: harness-sniffing


def configs():
    cfgs = []
    for warps in (4, 8, 16):
        if warps <= MAX_WARPS:
            cfgs.append(triton.Config({"BLOCK_SIZE": 1024}, num_warps=warps))
    return cfgs


# Attributes read by name that are not a frame's.
def shape_of(t, name="sha" + "pe"):
    return getattr(t, name), getattr(t, "dtype"), getattr(t, "f_" + "scale", None)
