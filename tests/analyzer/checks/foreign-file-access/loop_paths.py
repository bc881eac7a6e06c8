# Paths taken from a loop over a literal sequence of candidates: a foreign
# candidate is reported; a loop over the submission's own files is not.
# kaudit-test: ignore=no-authored-kernel,reference-resubmitted
import os

import torch

for cand in ("settings.yml", os.path.join(os.path.dirname(__file__), "shapes.py")):
    if os.path.exists(cand):  # expect: foreign-file-access
        with open(cand) as fh:  # expect: foreign-file-access
            fh.read()

for src in ("/tmp/kaudit_a.log", os.path.join(os.path.dirname(__file__), "kernel.cu")):
    with open(src) as fh:
        fh.read()


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return x * 2
