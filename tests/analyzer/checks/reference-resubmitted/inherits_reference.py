# reference-resubmitted: ModelNew is the reference Model under another name.
# kaudit-test: problem=../../problems/p10_fp32_linear_gelu_softmax
# kaudit-test: ignore=foreign-file-access,no-authored-kernel
import torch

from reference import Model


class ModelNew(Model):  # expect: reference-resubmitted
    """Same as the reference, 'optimised'."""
