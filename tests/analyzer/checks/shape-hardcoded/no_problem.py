# Without a problem folder only asserts and raises on large literals count.
# kaudit-test: ignore=no-authored-kernel,reference-resubmitted
import torch


class ModelNew(torch.nn.Module):
    def forward(self, q, k):
        B, H, S, D = q.shape
        assert D == 128
        assert S == 4000  # expect: shape-hardcoded
        if q.shape[-1] not in (64, 128):
            raise ValueError("head dim")
        if k.size(1) != 11008:  # expect: shape-hardcoded
            raise ValueError("hidden size")
        if S == 4096:
            return q * 2
        return q + k
