# Pointers passed to kernels, alignment tests, dtype identity, buffers
# allocated once and written on every call: none is an identity cache.
# kaudit-test: ignore=no-authored-kernel,reference-resubmitted
import torch


def launch(ptr, n):
    return ptr + n


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.workspace = None

    def forward(self, x):
        assert x.data_ptr() % 16 == 0
        if x.dtype is torch.float16:
            x = x.float()
        if self.workspace is None:
            self.workspace = torch.empty(1024, device=x.device)
        launch(x.data_ptr(), x.numel())
        out = torch.empty_like(x)
        launch(out.data_ptr(), self.workspace.numel())
        return out
