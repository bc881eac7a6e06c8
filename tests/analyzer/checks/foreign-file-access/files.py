# Reading, writing and listing files that are not the submission's own.
# kaudit-test: ignore=no-authored-kernel,reference-resubmitted
import glob
import os
import shutil
import sys
from pathlib import Path

import torch
import shapes  # expect: foreign-file-access
from reference import Model as Ref  # expect: foreign-file-access

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))  # expect: foreign-file-access


def peek():
    with open("reference.py") as f:  # expect: foreign-file-access
        src = f.read()
    spec = Path("problem.yaml").read_text()  # expect: foreign-file-access
    answers = torch.load("answers.pt")  # expect: foreign-file-access
    cached = torch.load("outputs_4096.pt")  # expect: foreign-file-access
    here = os.listdir(".")  # expect: foreign-file-access
    py_files = glob.glob("*.py")  # expect: foreign-file-access
    os.remove("check.py")  # expect: foreign-file-access
    shutil.copy("benchmark.py", "/tmp/b.py")  # expect: foreign-file-access
    up = open(os.path.join(os.path.dirname(os.path.dirname(__file__)), "x"))  # expect: foreign-file-access
    return src, spec, answers, cached, here, py_files, up


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return x * 2
