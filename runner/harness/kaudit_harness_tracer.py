"""Call boundaries for libkaudit_tracer.so (tracer/kaudit_tracer.h), in either process: the
submission's calls, and the reference's expected-output calls (what the reference itself spends
on glue sets the submission's allowance, docs/runner.md)."""
import ctypes
import os
from kaudit_harness_protocol import CONFIG


class Tracer:
    def __init__(self):
        self.lib = None
        path = os.environ.get("CUDA_INJECTION64_PATH")
        if CONFIG.get("trace") and path:
            self.lib = ctypes.CDLL(path)
            self.lib.kaudit_call_begin.argtypes = [ctypes.c_char_p] * 3 + [ctypes.c_longlong]

    def begin(self, phase, shape, mode, index):
        if self.lib:
            self.lib.kaudit_call_begin(phase.encode(), str(shape).encode(), mode.encode(), index)

    def end(self):
        if self.lib:
            self.lib.kaudit_call_end()

    def flush(self):
        if self.lib:
            self.lib.kaudit_tracer_flush()

    @property
    def active(self):
        return self.lib is not None

    def finish(self):
        """The end line the exit handler would write: os._exit skips it.
        Nothing is traced after it, in the whole process."""
        if self.lib:
            self.lib.kaudit_tracer_finish()
            self.lib = None
