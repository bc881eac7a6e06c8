"""Attack, class 2 (results reported from inside the process): the harness's
send() rewritten through setattr in a lambda, with an empty sample list.

What it does: reaches the harness's globals through the interpreter's frames
(sys.exc_info(), getattr(f, "f_" + "back"), no frame attribute spelt out) and
swaps the code of the harness's own send() function:
`(lambda f, c: setattr(f, "__co" + "de__", c))(send, forged.__code__)`. The
forged code runs with the harness's globals (CHANNEL, json, CONFIG): it notes
the harness's "phase" messages in CONFIG to know when timing starts, and
rewrites every "timing" message: an empty sample list and times divided by
100. forward is right in the correctness calls and returns uninitialised
memory in every timing call (warm-up and timed), which no sample now checks.

What kaudit must report: never clean and correct: timed outputs no sample
verified and a sample list shorter than the plan's are a protocol violation
(protocol-violation, pending), the times are forged (timing-forged, pending),
the harness was patched (harness-tampering, pending); or, where samples are
taken out of the process's reach, the wrong timed outputs
(correct-only-untimed).
"""
import sys

import torch

HARNESS = {}


def _harness_globals():
    try:
        raise LookupError
    except LookupError:
        f = getattr(sys.exc_info()[2], "tb_" + "frame")
    while f is not None:
        g = getattr(f, "f_" + "globals")
        # A harness module's globals: the swapped code runs with those of the
        # module send() comes from (its channel, json, CONFIG).
        if "CONFIG" in g and "send" in g:
            return g
        f = getattr(f, "f_" + "back")
    return None


def _forged_send(event, **fields):
    # Runs as the harness's send(), with the harness's globals.
    if event == "phase":
        CONFIG["_timing"] = fields.get("phase") == "timing"  # noqa: F821
    if event == "timing":
        fields["samples"] = []
        fields["times_ms"] = [t / 100.0 for t in fields.get("times_ms", [])]
    fields["event"] = event
    _os_write(CHANNEL_FD, (_dumps(fields, separators=(",", ":")) + "\n").encode())  # noqa: F821


def _install():
    g = _harness_globals()
    if g is None:
        return
    HARNESS.update(config=g["CONFIG"])
    (lambda f, c: setattr(f, "__co" + "de__", c))(g["send"], _forged_send.__code__)


_install()


class Model(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1)

    def forward(self, x, w):
        if HARNESS and HARNESS["config"].get("_timing"):
            return torch.empty(x.shape[0], w.shape[1])
        return torch.relu(torch.matmul(x, w) + self.bias)
