"""Attack, class 8 (bad bytes): a solution whose file name is not UTF-8.

The suite copies this file to a name holding the bytes 0xFF 0xFE and a lone
continuation byte (b"bytes_\\xff\\xfe\\x80_name.py") in its temporary folder and
audits that copy by its path (tests/attacks/manifest.json, "generate"), since
a JSON manifest cannot hold such a name. The name flows into the batch's key,
submission.json, analysis.json, run.json, verdict.json, the summary and the
reports. The code is a plain cheat: right on inputs it has not seen (the correctness calls), zeros after (correct-only-untimed).

What kaudit must report: correct-only-untimed; kaudit exits normally and every
JSON file of the batch is valid UTF-8 JSON.
"""
import torch


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)
        self.calls = 0
        self.seen = set()

    def forward(self, x, w):
        self.calls += 1
        # Timed without counting calls (the runner mixes probe cases in among the
        # correctness calls): the warm-up and the timed calls reuse inputs it saw.
        repeat = x.data_ptr() in self.seen
        self.seen.add(x.data_ptr())
        if repeat:
            return torch.zeros(x.shape[0], w.shape[1])
        return torch.relu(torch.matmul(x, w) + self.bias)
