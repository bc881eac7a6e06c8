# The submission's own files, temporary files and build folders: nothing to report.
# kaudit-test: ignore=no-authored-kernel,reference-resubmitted
import os
import tempfile

import torch

KERNEL = open(os.path.join(os.path.dirname(__file__), "kernel.cu")).read()
with open("/tmp/kaudit_build.log", "w") as log:
    log.write("building\n")
build_dir = tempfile.mkdtemp()
with open(__file__) as me:
    me.read()


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return x * 2
