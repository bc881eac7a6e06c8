"""The reference's process: shapes, every correctness input, then the expected outputs of
the inputs the submission's calls saw."""
import os
from kaudit_harness_protocol import (_loads, _perf_counter, _token_hex, CONFIG, device_idle, device_turn, open_existing,
    receive, send)
from kaudit_harness_seals import T
from kaudit_harness_tensors import (device_memory, host_values, inputs_digest, note_memory_phase, read_files,
    read_values, returned, same_values, tensor_bytes, write_values)
from kaudit_harness_probes import (HABIT_CHECK_BYTES, SEEDED_CASE_BYTES, KnownOutputs, make_input_probes,
    reference_habits)
from kaudit_harness_problem import Problem
from kaudit_harness_tracer import Tracer


# The reference's own glue per call (trace.reference_glue, what a submission
# may spend on the same routing) is read from its first expected-output calls
# on each graded shape; once every graded shape has had these, its tracer
# stops. A reference that launches thousands of small kernels a call
# (upstream's KDA: a Python loop over time steps, about 70 calls in a run)
# otherwise filled a journal that took the runner 12 s to read, and CUPTI
# recorded every one of those kernels while the reference computed.
TRACED_CALLS_PER_SHAPE = 2


def seeded_inputs(problem, job):
    """A timed call's inputs, drawn again from its seed (the problem's shape
    applied): fresh mode's as drawn; rewrite mode's tensors as drawn, written
    into the first case's tensors, whose other values (numbers) stay."""
    inputs = problem.gen_inputs(job["seed"])
    if job.get("mode") == "rewrite":
        base = job.get("base") or []
        inputs = [v if isinstance(v, T.Tensor) or k >= len(base) or "value" not in base[k] else base[k]["value"]
                  for k, v in enumerate(inputs)]
    return inputs


class Parts:
    """Seconds by part of a step, for its phase record (run.json `phases[]`'s
    `parts`): where the reference's input generation and expected outputs go.
    The waits for the device's turn are apart (`device_wait`)."""

    def __init__(self):
        self.seconds = {}
        self._part, self._since = None, 0.0

    def start(self, part):
        """`part` from now until the next start() or stop()."""
        self.stop()
        self._part, self._since = part, _perf_counter()

    def stop(self):
        if self._part is not None:
            self.seconds[self._part] = self.seconds.get(self._part, 0.0) + _perf_counter() - self._since
        self._part = None

    def turn(self):
        """device_turn(), its wait counted apart."""
        part = self._part
        self.start("device_wait")
        device_turn()
        self.stop()
        if part is not None:
            self.start(part)

    def report(self):
        self.stop()
        return {k: round(v, 4) for k, v in self.seconds.items()}


def run_reference(torch):
    """The reference's steps; what its last message ("done") says besides."""
    if CONFIG.get("helper"):
        return run_reference_helper(torch)
    problem = Problem(torch)
    send("shapes", shapes=problem.shapes, graded=problem.graded_count, indices=problem.graded_indices)
    # Wait for the device's turn (runs that share a GPU take turns at it).
    if not receive():
        return {}
    # Names nobody can guess: the reference's files are never ones the
    # submission made (and it cannot write where they go, in the sandbox).
    token = _token_hex(8)
    inputs_dir = os.path.join(CONFIG["xfer"], "in")
    expected_dir = os.path.join(CONFIG["xfer"], "exp")
    mutating_shapes = set()  # shapes whose reference writes into its inputs
    known = KnownOutputs(torch)  # its outputs on inputs it ran on while making them
    parts = Parts()
    with torch.no_grad():
        for i in range(len(problem.shapes)):
            problem.apply_shape(i)
            # Each seed's inputs are written once. A numeric-stress case is a
            # seed's inputs with every floating tensor of 2 bytes or more per
            # element scaled (fp8 and integers stay): the same files, with the
            # scale applied wherever they are read (read_values).
            written = {}  # seed -> (entries, which of them a stress case scales)
            by_seed = False  # the shape's other seeds are drawn, not written (seeded_case)
            for j, case in enumerate(CONFIG["cases"]):
                if by_seed and case["seed"] not in written and case["scale"] == 1.0:
                    send("case", shape=i, case=j, inputs=[], seed=case["seed"])
                    continue
                if case["seed"] not in written:
                    parts.turn()
                    parts.start("draw")
                    inputs = problem.gen_inputs(case["seed"])
                    scalable = [isinstance(v, torch.Tensor) and v.is_floating_point() and v.element_size() >= 2
                                for v in inputs]
                    if j == 0:
                        # Drawn again from the same seed, bit for bit? Then the
                        # timed calls' fresh and rewrite inputs are drawn again
                        # here from the runner's seeds, never taken from files
                        # the submission's process wrote (docs/runner.md).
                        parts.start("draw_again")
                        again = problem.gen_inputs(case["seed"])
                        reproducible = same_values(torch, inputs, again) and len(inputs) == len(again)
                        send("reproducible", shape=i, reproducible=reproducible)
                        del again
                        by_seed = reproducible and tensor_bytes(torch, inputs) > CONFIG.get("seeded_case_bytes", SEEDED_CASE_BYTES)
                    outputs = None  # the reference's on these inputs, where it changed none
                    if j == 0 and tensor_bytes(torch, inputs) <= HABIT_CHECK_BYTES:
                        parts.start("habits")
                        changed, aliased, outputs = reference_habits(torch, problem, inputs)
                        if changed:
                            mutating_shapes.add(i)
                        send("reference_habits", shape=i, changes_inputs=changed, aliases_input=aliased)
                    # Copied to host memory under the turn; written without it.
                    parts.start("files")
                    inputs = host_values(inputs)
                    device_idle()
                    written[case["seed"]] = (
                        write_values(torch, inputs, os.path.join(inputs_dir, "%s_s%d_c%d_" % (token, i, j))),
                        scalable)
                    known.keep(i, written[case["seed"]][0], outputs)
                    del inputs, outputs
                entries, scalable = written[case["seed"]]
                if case["scale"] != 1.0:
                    entries = [dict(e, scale=case["scale"]) if s else e for e, s in zip(entries, scalable)]
                send("case", shape=i, case=j, inputs=entries)
        note_memory_phase(torch, "inputs")
        parts.start("probes")
        make_input_probes(torch, problem, token, inputs_dir, parts, known)
        note_memory_phase(torch, "probes")
    if CONFIG["device"] == "cuda":
        torch.cuda.empty_cache()
    send("generated", parts=parts.report())
    # Then batches of check jobs, each a line naming their file, until an
    # empty line. In the sandbox the first come while the submission runs
    # (the correctness cases, and each timing mode's seeded samples once its
    # calls are over): their expected outputs go to exp/, which the
    # submission's process cannot see. Without it the runner sends one batch
    # once the submission is done: then nothing of them exists while it runs.
    return answer_batches(torch, ExpectedOutputs(torch, problem, token, expected_dir, mutating_shapes, known))


def run_reference_helper(torch):
    """A second reference process (docs/runner.md, "The reference's helper"):
    it makes no input and traces nothing, and answers the timed samples' jobs
    beside the first, from the same problem, model seed and files."""
    problem = Problem(torch)
    send("ready")
    return answer_batches(torch, ExpectedOutputs(torch, problem, _token_hex(8), os.path.join(CONFIG["xfer"], "exp"),
                                                 set()))


def answer_batches(torch, outputs):
    """Batches of check jobs, each a line naming their file, until an empty
    line. The file also names the shapes whose reference writes into its
    inputs (a helper learns them so)."""
    while True:
        line = receive()
        if not line:
            break
        with open_existing(line) as f:
            batch = _loads(f.read())
        jobs = batch["jobs"]
        outputs.mutating_shapes.update(batch.get("mutating_shapes", []))
        parts = outputs.batch(jobs)
        if CONFIG["device"] == "cuda":
            torch.cuda.empty_cache()  # what the submission's calls beside it may need
        send("expected_batch", jobs=len(jobs), parts=parts, known=outputs.known_in_batch)
    note_memory_phase(torch, "expected")
    return {"device_memory": device_memory(torch)}


class ExpectedOutputs:
    """The reference's outputs for batches of check jobs, written to files and
    announced one by one ("expected"); its model per shape carries over from
    one batch to the next."""

    def __init__(self, torch, problem, token, expected_dir, mutating_shapes, known=None):
        self.torch, self.problem, self.token, self.expected_dir = torch, problem, token, expected_dir
        self.mutating_shapes = mutating_shapes  # shapes whose reference writes into its inputs
        self.known = known or KnownOutputs(torch)  # outputs it computed while making the inputs
        self.known_in_batch = 0  # the jobs of the last batch answered from them
        self.models = {}
        self.tracer = Tracer()  # the reference's own calls, marked in a traced run
        self.calls = 0  # each call's index in the trace
        self.traced = {i: 0 for i in range(len(problem.graded_indices))}  # graded shape -> its calls traced

    def batch(self, jobs):
        """One batch; its seconds by part. A job the reference raises on is
        reported ("expected_failed") and the others go on: a probe's inputs
        may be outside what the reference accepts (a domain check, a scaled
        case), which says nothing of the submission; the runner decides what
        each failure means (runner/session/run.cpp, mark_reference_failures)."""
        torch = self.torch
        # Jobs on the same input files (a seed's case, its stress cases, bench
        # samples) one after another, so that each file is read once.
        def files_of(job):
            return [e.get("file", "") for e in job.get("inputs") or []]
        jobs.sort(key=lambda job: (job["shape"], files_of(job)))
        cache, cached_files = {}, None
        parts = Parts()
        self.known_in_batch = 0
        with torch.no_grad():
            for job in jobs:
                # A reference that writes into its inputs gets them fresh from the files every job.
                if files_of(job) != cached_files or job["shape"] in self.mutating_shapes:
                    cache, cached_files = {}, files_of(job)
                try:
                    self.one(job, cache, parts)
                except Exception as e:  # noqa: BLE001 - this job's failure, reported; the batch goes on
                    cache, cached_files = {}, None  # what it read may be half made
                    parts.stop()
                    send("expected_failed", id=job["id"], type=type(e).__name__, message=str(e)[:2000])
        return parts.report()

    def one(self, job, cache, parts):
        """One job's expected output, written and announced."""
        outs, digest = self.known.take(job), {}
        if outs is None:
            outs, digest = self.compute(job, cache, parts)
        else:
            self.known_in_batch += 1
        parts.start("write")
        entries = write_values(self.torch, outs, os.path.join(self.expected_dir, "%s_%s_" % (self.token, job["id"])))
        parts.stop()
        send("expected", id=job["id"], outputs=entries, **digest)

    def compute(self, job, cache, parts):
        """The reference's outputs for one job, in host memory, and the
        fingerprint of the inputs it drew for a seeded job."""
        torch, problem = self.torch, self.problem
        i = job["shape"]
        problem.apply_shape(i)
        # Files are read, and outputs written, without the device's turn.
        parts.start("read")
        host = {} if "seed" in job else read_files(torch, job["inputs"], cache)
        parts.turn()
        parts.start("compute")
        if i not in self.models:
            self.models = {i: problem.make_model(problem.ref.Model)}
        digest = {}
        if "seed" in job:
            inputs = seeded_inputs(problem, job)
            digest = {"inputs_digest": inputs_digest(inputs)}
        else:
            inputs = read_values(torch, job["inputs"], CONFIG["device"], cache, host)
        del host
        traced = self.begin_traced(i)
        try:
            got = self.models[i](*inputs)
        finally:
            if traced:
                self.end_traced()
        outs = host_values(returned(got))
        del inputs, got
        device_idle()
        return outs, digest

    def begin_traced(self, i):
        """Marks this call in the reference's trace, while graded shape i has
        had fewer than TRACED_CALLS_PER_SHAPE marked calls; whether it did."""
        if not self.tracer.active or self.traced.get(i, TRACED_CALLS_PER_SHAPE) >= TRACED_CALLS_PER_SHAPE:
            return False
        self.tracer.begin("reference", i, "expected", self.calls)
        self.calls += 1
        self.traced[i] += 1
        return True

    def end_traced(self):
        """Ends the marked call; once every graded shape has its calls, the
        tracer stops for the rest of the process."""
        self.tracer.end()
        if all(n >= TRACED_CALLS_PER_SHAPE for n in self.traced.values()):
            self.tracer.finish()
