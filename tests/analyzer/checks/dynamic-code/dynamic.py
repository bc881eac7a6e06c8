# Code built or looked up at run time.
# kaudit-test: ignore=no-authored-kernel,reference-resubmitted
import base64
import importlib
import sys
import types
import zlib

import torch

PAYLOAD = "aW1wb3J0IHRvcmNo"
name = "mat" + "mul"


def hidden(x, op_name):
    fn = getattr(torch, op_name)  # expect: dynamic-code
    mod = importlib.import_module(op_name)  # expect: dynamic-code
    other = __import__(op_name)  # expect: dynamic-code
    torch_again = sys.modules["torch"]  # expect: dynamic-code
    src = zlib.decompress(base64.b64decode(PAYLOAD))  # expect: dynamic-code
    exec(src)  # expect: dynamic-code
    code = compile("x + 1", "<k>", "eval")  # expect: dynamic-code
    f = types.FunctionType(code, {})  # expect: dynamic-code
    return eval(op_name + "(x)")  # expect: dynamic-code


class ModelNew(torch.nn.Module):
    def forward(self, x):
        y = eval("x * 2")  # expect: dynamic-code
        return hidden(y, name)
