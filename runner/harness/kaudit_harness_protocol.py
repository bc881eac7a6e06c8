"""The channel to the runner: the configuration, JSON messages on the channel's file descriptor,
lines from stdin, the device's turns, errors; and the files the harness opens."""
import hashlib
import json
import os
import secrets
import stat
import sys
import time
import traceback


CONFIG = {}


CHANNEL_FD = -1


# Bound before anything else is imported: what the harness calls is these,
# whatever the submission later does to the modules they came from.
_dumps = json.dumps


_loads = json.loads


_os_write = os.write


_os_open = os.open


_os_close = os.close


_os_fstat = os.fstat


_os_fdopen = os.fdopen


_perf_counter = time.perf_counter


_isreg = stat.S_ISREG


_token_hex = secrets.token_hex


_stdin_readline = sys.stdin.readline


_exc_format = traceback.format_exception


_sha256 = hashlib.sha256


def send(event, **fields):
    fields["event"] = event
    data = (_dumps(fields, separators=(",", ":")) + "\n").encode()
    while data:
        data = data[_os_write(CHANNEL_FD, data):]


def receive():
    """One line from the runner (stdin), without its newline."""
    return _stdin_readline().strip()


def device_turn():
    """A point before a piece of untimed GPU work where a run sharing the
    device and waiting to time goes first: the runner answers "go" once this
    run may use the device (at once when nobody waits, or on the CPU)."""
    send("turn")
    if receive() != "go":
        raise RuntimeError("the runner did not give the device back")


def device_idle():
    """This process needs the device no more until its next device_turn():
    what follows is file work (tensors already copied to host memory), and a
    run waiting to time need not wait for it. No answer."""
    send("device_idle")


def raised_by(exc):
    """An exception a call raised, for the runner (`call`'s `raised`)."""
    tb = _exc_format(type(exc), exc, exc.__traceback__)
    return {"type": type(exc).__name__, "message": str(exc)[:2000], "traceback": "".join(tb)[-4000:]}


def fail(phase, exc):
    tb = _exc_format(type(exc), exc, exc.__traceback__)
    send("error", phase=phase, type=type(exc).__name__, message=str(exc)[:2000],
         traceback="".join(tb)[-4000:])


def open_new(path):
    """A file the harness writes: never one that exists, never through a link."""
    fd = _os_open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    return _os_fdopen(fd, "wb")


def open_existing(path):
    """A file the harness reads: a regular file, never through a link."""
    fd = _os_open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    if not _isreg(_os_fstat(fd).st_mode):
        _os_close(fd)
        raise ValueError("%s is not a regular file" % path)
    return _os_fdopen(fd, "rb")
