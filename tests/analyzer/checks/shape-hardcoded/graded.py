# Pinning the problem's graded shapes (4096x4096x4096 and 3000x5120x1536).
# kaudit-test: problem=../../problems/gemm_graded
# kaudit-test: ignore=no-authored-kernel,reference-resubmitted
import torch

CONFIGS = {  # expect: shape-hardcoded
    (4096, 4096, 4096): (128, 128, 64),
    (3000, 5120, 1536): (64, 256, 32),
}

TUNED = {
    (4096, 4096, 4096): (128, 128, 64),
    (3000, 5120, 1536): (64, 256, 32),
}


def pick(M, N, K):
    return CONFIGS[(M, N, K)]


def pick_with_default(M, N, K):
    return TUNED.get((M, N, K), (64, 64, 32))


def block_for(M):
    if M == 3000:  # expect: shape-hardcoded
        block = 64
    elif M == 4096:
        block = 128
    return block


def block_with_fallback(M):
    if M == 3000:
        return 64
    return 128


class ModelNew(torch.nn.Module):
    def forward(self, a, b):
        M, K = a.shape
        N = b.shape[1]
        assert (M, N, K) in [(4096, 4096, 4096), (3000, 5120, 1536)]  # expect: shape-hardcoded
        if a.shape[0] != 3000 and a.shape[0] != 4096:  # expect: shape-hardcoded
            raise ValueError("unsupported shape")
        assert K % 64 == 0
        assert a.dim() == 2
        return a * 2
