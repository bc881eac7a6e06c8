"""kaudit harness shim: the only Python in kaudit (docs/runner.md).

The runner (`kaudit run`) starts this file in the submission's interpreter,
once as the reference process and once as the submission process. It loads
the problem and the solution, generates inputs, calls the model and hands
every tensor to the runner as a file (one JSON header line, then the raw
bytes). It decides nothing: the runner compares the files itself, outside
this process, so a submission that patches torch cannot change a verdict.

Messages go to the runner as JSON lines on the file descriptor it opened
(config "channel_fd"), never on stdout.

This file is the entry; the modules beside it, one purpose each:
  kaudit_harness_protocol    the configuration, the channel, the device's turns
  kaudit_harness_seals       what the harness binds before the submission runs, and the seals
  kaudit_harness_tensors     tensors as files, values on the device and the host, output checks
  kaudit_harness_problem     the problem: its shapes, inputs from a seed, the reference model
  kaudit_harness_ops         the ATen op record of untimed calls
  kaudit_harness_probes      the input probes the reference makes
  kaudit_harness_reference   the reference's process
  kaudit_harness_submission  the submission's process: correctness, timing modes, off-grid shapes
  kaudit_harness_tracer      call boundaries for the tracer, in either process

The submission runs in this process and can reach anything in it: nothing
it says is taken on trust (docs/threat-model.md). The harness binds every
function it relies on before the submission is imported and reports any
that was replaced afterwards (`tampered`); the runner times each timed call
from outside, reveals which calls it checks only after they returned, and
reads every tensor as bytes.
"""
import os
import sys
import kaudit_harness_protocol as protocol
from kaudit_harness_protocol import _loads, _perf_counter, CONFIG, fail, open_existing, receive, send
from kaudit_harness_seals import bind_torch, bind_torch_wrappers
from kaudit_harness_problem import redirect_cuda_to_cpu
from kaudit_harness_reference import run_reference
from kaudit_harness_submission import run_submission
from kaudit_harness_tracer import Tracer


def limit_tasks(limit):
    """RLIMIT_NPROC where it is the run's task limit (runner/process/task_limit.h),
    set here, inside the sandbox's user namespace, before anything of the
    problem or the submission runs: hard and soft, so nothing can raise it."""
    if limit:
        import resource
        resource.setrlimit(resource.RLIMIT_NPROC, (limit, limit))


def main():
    with open_existing(sys.argv[1]) as f:
        CONFIG.update(_loads(f.read()))  # in place: every harness module holds this dict
    protocol.CHANNEL_FD = CONFIG["channel_fd"]
    phase = "start"
    # Seconds by part of the process's start, for its phase record (run.json
    # `phases[]`: the reference's `import`, the submission's `start`).
    parts, since = {}, _perf_counter()

    def part_done(name):
        nonlocal since
        now = _perf_counter()
        parts[name] = round(now - since, 4)
        since = now

    try:
        limit_tasks(CONFIG.get("nproc_limit", 0))
        import torch
        part_done("torch")
        # torch._dynamo wraps torch.manual_seed (and more) in its own
        # decorator when it is first imported, which any later torch call
        # may do: imported now, before anything is bound or sealed, that is
        # not taken for the submission's tampering. The reference's process
        # seals nothing, and its start is on the run's path (its inputs come
        # before the submission's first call): there it is not imported
        # unless its problem needs it (4.3 s of its 8.2 s start on an H100).
        if CONFIG["role"] != "reference":
            try:
                import torch._dynamo  # noqa: F401
            except Exception:  # noqa: BLE001 - a torch without it
                pass
            part_done("dynamo")
        if CONFIG["device"] == "cpu":
            redirect_cuda_to_cpu(torch)
        bind_torch(torch)
        bind_torch_wrappers(torch)
        part_done("bind")
        env = {"python": sys.version.split()[0], "torch": torch.__version__}
        if CONFIG["device"] == "cuda":
            env["gpu"] = torch.cuda.get_device_name(0)  # the device's start, and the tracer's where it is injected
            part_done("device")
            try:
                import triton
                env["triton"] = triton.__version__
            except Exception:
                pass
            part_done("triton")
        send("hello", role=CONFIG["role"], pid=os.getpid(), environment=env, parts=parts)
        if CONFIG["role"] == "reference":
            phase = "reference"
            send("done", **(run_reference(torch) or {}))
        else:
            # The runner reads from /proc which pipe this process's channel is
            # while nothing of the submission has run, then answers.
            if receive() == "go":
                run_submission(torch)
    except BaseException as e:
        fail(phase, e)
    Tracer().finish()
    # Skip interpreter teardown: a submission's atexit hooks have nothing to say.
    os._exit(0)


if __name__ == "__main__":
    main()
