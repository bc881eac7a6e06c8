# A table keyed on the graded shapes including small dims (M=1, M=17), guarded
# only by an assert on membership: every other shape is rejected. A table with
# a real fallback, or keyed on shapes the problem does not grade, is fine.
# kaudit-test: problem=../../../../kernels/problems/w4a16_gemm
# kaudit-test: ignore=no-authored-kernel,reference-resubmitted
import torch

PINNED = {  # expect: shape-hardcoded
    (1, 12288, 4096): (16, 64),
    (17, 4096, 11008): (32, 64),
}

WITH_DEFAULT = {
    (1, 12288, 4096): (16, 64),
    (17, 4096, 11008): (32, 64),
}

OTHER_SHAPES = {
    (3, 999, 4096): (16, 64),
    (5, 777, 11008): (32, 64),
}


def pinned_cfg(x, w):
    key = (x.shape[0], w.shape[0], x.shape[1])
    assert key in PINNED, "unsupported"
    return PINNED[key]


def cfg_with_default(x, w):
    key = (x.shape[0], w.shape[0], x.shape[1])
    if key in WITH_DEFAULT:
        return WITH_DEFAULT[key]
    return (64, 64)


def other_cfg(x, w):
    return OTHER_SHAPES[(x.shape[0], w.shape[0], x.shape[1])]


class ModelNew(torch.nn.Module):
    def forward(self, x, w):
        return x * 2
