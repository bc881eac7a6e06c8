"""The submission's process: its import, then each shape's correctness cases, its timing
modes and the off-grid shapes, every output handed back as files."""
import os
from kaudit_harness_protocol import (_loads, _perf_counter, _token_hex, CONFIG, device_idle, device_turn, fail,
    open_existing, raised_by, receive, send)
from kaudit_harness_seals import check_seals, seals, T
from kaudit_harness_tensors import (clone_tensor, device_memory, HOLD_BYTES, HOST_POOL_MARGIN, host_values,
    inputs_digest, note_memory_phase, OutputChecks, poison, read_files, read_values, release_cached, returned,
    same_values, settle_host_allocator, STREAM_PROBE_SLEEP_CYCLES, sync, tensor_bytes, write_values)
from kaudit_harness_problem import load_module, Problem
from kaudit_harness_ops import bind_recorder, record_ops, recorder_seals
from kaudit_harness_tracer import Tracer


# Correctness calls whose inputs are at most this many bytes hand them back
# to the runner after every call (it compares the bytes itself); bigger ones
# are compared here, with functions bound before the submission was imported.
INPUTS_BACK_BYTES = 16 << 20


def load_solution_class():
    """The submission's model class, from its module (imported here)."""
    solution = load_module("solution", CONFIG["solution"])
    # KernelBench names the submission's class ModelNew, KernelBench-Hard
    # Model; submissions in the wild use either with either format.
    names = ("ModelNew", "Model") if CONFIG["format"] == "kernelbench" else ("Model", "ModelNew")
    cls = next((getattr(solution, n) for n in names if isinstance(getattr(solution, n, None), type)), None)
    if cls is None:
        raise AttributeError("the solution defines no class %s or %s" % names)
    return cls


def run_submission(torch):
    send("phase", phase="setup")
    try:
        problem = Problem(torch)
    except BaseException as e:  # noqa: B902 - the problem itself failed
        fail("setup", e)
        return
    bind_recorder(torch)
    sealed = seals(torch, recorder_seals(torch))  # before the submission is imported
    tampered = set()
    try:
        cls = load_solution_class()
    except BaseException as e:  # SystemExit and KeyboardInterrupt at import are failures too
        fail("import", e)
        return
    check_seals(sealed, tampered, "import")
    # Import and set-up overlap the reference's input generation; the runner
    # then sends the path of the second half of the configuration.
    send("ready")
    line = receive()
    if not line:
        return
    with open_existing(line) as f:
        CONFIG.update(_loads(f.read()))
    SubmissionCalls(torch, problem, cls, sealed, tampered).run()


class SubmissionCalls:
    """The submission's calls once the runner's configuration is complete:
    each graded shape's correctness cases, its timing modes, then the
    off-grid shapes. Its methods are sealed with the harness's own code
    (seals); slots, so that no method can be shadowed on the instance."""

    __slots__ = ("torch", "device", "outputs_dir", "problem", "cls", "sealed", "tampered", "tracer", "flush_buf",
                 "by_shape")

    def __init__(self, torch, problem, cls, sealed, tampered):
        self.torch, self.problem, self.cls = torch, problem, cls
        self.sealed, self.tampered = sealed, tampered
        self.device = CONFIG["device"]
        self.outputs_dir = os.path.join(CONFIG["xfer"], "out")
        self.tracer = Tracer()
        # Written before every timed call in every mode (the device's L2, or the
        # CPU's last-level cache), so that no mode's inputs start warmer.
        self.flush_buf = None
        if CONFIG["flush_bytes"] > 0:
            self.flush_buf = T.empty(int(CONFIG["flush_bytes"]) // 4, dtype=torch.int32, device=self.device)
        self.by_shape = {}
        for c in CONFIG["correctness"]:
            self.by_shape.setdefault(c["shape"], []).append(c)

    def flush(self):
        if self.flush_buf is not None:
            self.flush_buf.zero_()

    def expect(self, answer, what):
        got = receive()
        if got not in answer:
            raise RuntimeError("the runner did not %s (it said %r)" % (what, got[:80]))
        return got

    def timed(self, model, args, mode, shape, index):
        tracer = self.tracer
        tracer.begin("timed", shape, mode, index)
        if self.device == "cuda":
            start = T.Event(enable_timing=True)
            end = T.Event(enable_timing=True)
            T.ev_record(start)
            out = model(*args)
            T.ev_record(end)
            # The call ends once the timing event has completed, not once the
            # whole device is idle: work still running then (on side streams
            # the caller never waits for) lands after the call's end in the
            # trace (gpu-work-outside-timing) instead of being hidden by it.
            T.ev_synchronize(end)
            tracer.end()
            T.synchronize()
            ms = T.ev_elapsed(start, end)
        else:
            t0 = _perf_counter()
            out = model(*args)
            ms = (_perf_counter() - t0) * 1e3
            tracer.end()
        return out, ms

    def null_call(self, shape, mode):
        """What timed() does around a call, with no call: the runner's clock
        on it is the overhead of a timed call on this machine (the events,
        the synchronizes, the messages), apart from any work the submission
        does. On an H100 beside other runs it was 2.4 ms in every call of
        some runs, over a 2 ms allowance: fast honest calls read as forged.
        No code of the submission runs in it."""
        if self.device == "cuda":
            start = T.Event(enable_timing=True)
            end = T.Event(enable_timing=True)
            T.ev_record(start)
            T.ev_record(end)
            T.ev_synchronize(end)
            T.synchronize()
            ms = T.ev_elapsed(start, end)
        else:
            t0 = _perf_counter()
            ms = (_perf_counter() - t0) * 1e3
        send("null_timed", shape=shape, mode=mode, ms=ms)

    def stream_order_probe(self, model, args, shape):
        """Is the output complete on the caller's stream when forward returns?
        The caller's stream is kept busy first, so work the submission queues
        on another stream after waiting for the caller's is still pending when
        a copy on the caller's stream reads the output; after a full
        synchronize both must be equal. Work the caller's stream never waits
        for is outside any interval its events measure."""
        torch = self.torch
        poison(torch, min(4 * tensor_bytes(torch, args), HOLD_BYTES))
        sync(torch)
        self.tracer.begin("probe", shape, "stream-order", 0)
        spin = getattr(torch.cuda, "_sleep", None)  # a private API: without it, the probe is weaker
        if spin is not None:
            spin(STREAM_PROBE_SLEEP_CYCLES)
        out = model(*args)
        outs = [o for o in returned(out) if isinstance(o, T.Tensor)]
        early = [T.clone(o) for o in outs]  # ordered on the caller's stream only
        sync(torch)
        self.tracer.end()
        differing = sum(1 for a, b in zip(early, outs) if not same_values(torch, [a], [b]))
        send("probe", shape=shape, probe="stream-order", outputs=len(outs), differing=differing)

    def correctness(self, i, model):
        """Every correctness case of shape i: outputs (and inputs, when the
        call may have changed them) go back to the runner as files."""
        checks = OutputChecks(self.torch)
        # Every case's inputs stay alive until the shape is done, so that no
        # two calls of a shape see the same addresses; inputs of several GiB
        # are let go (runs sharing the device would run out of memory), and a
        # cache on addresses is then wrong at the next case instead of at the
        # rewrite mode.
        held, held_bytes = [], 0
        files = {}  # a seed's files, read once for the seed and its stress cases
        for n_case, c in enumerate(self.by_shape.get(i, [])):
            inputs, digest = self.case_inputs(c, files)
            nbytes = tensor_bytes(self.torch, inputs)
            held_bytes += nbytes
            if held_bytes <= HOLD_BYTES:
                held.append(inputs)
            self.correctness_call(i, n_case, c, model, inputs, digest, nbytes, checks)
        send("checks", shape=i, mode="correctness", counts=checks.counts, types=sorted(checks.types))
        return files

    def case_inputs(self, c, files):
        """A correctness case's inputs on the device, and {inputs_digest} when
        drawn here from its seed (SEEDED_CASE_BYTES), not read from files."""
        seeded = "seed" in c
        host = {} if seeded else read_files(self.torch, c["inputs"], files)  # file work, before the device's turn
        device_turn()
        if seeded:
            inputs = self.problem.gen_inputs(c["seed"])
            return inputs, {"inputs_digest": inputs_digest(inputs)}
        return read_values(self.torch, c["inputs"], self.device, files, host), {}

    def correctness_call(self, i, n_case, c, model, inputs, digest, nbytes, checks):
        """One correctness call, its outputs (and changed inputs) sent as files."""
        torch, tracer = self.torch, self.tracer
        seeded = "inputs_digest" in digest
        # Small inputs, and the first case's, go back to the runner after
        # the call, whole; bigger ones are compared here first and go back
        # only when they changed (large tensors are costly to move).
        back = not seeded and (n_case == 0 or nbytes <= INPUTS_BACK_BYTES)
        prefix = os.path.join(self.outputs_dir, "s%d_c%d_" % (i, c["case"]))
        # A stress case's inputs are scaled here, so they are not the
        # reference's files: the runner gets them as the call got them.
        scaled = back and any("scale" in e for e in c["inputs"])
        handed = write_values(torch, inputs, prefix + "b") if scaled else None
        before = None if back else [clone_tensor(torch, v) for v in inputs]
        release_cached(torch)
        poison(torch, min(4 * nbytes, HOLD_BYTES))
        tracer.begin("correctness", i, "", c["case"])
        try:
            out = model(*inputs)
            if n_case == 0:
                # A build or compile happens inside forward; what the
                # call launched and is still running now is no build:
                # from here the runner gives the first call a call's
                # limit, so a kernel that never ends holds the device
                # (shared by runs of kaudit audit --jobs) no longer.
                send("returned", shape=i)
            sync(torch)
        except Exception as e:  # noqa: BLE001 - the runner decides: an error in a graded case
            tracer.end()
            send("call", kind="correctness", shape=i, case=c["case"], outputs=[], inputs_after=[],
                 raised=raised_by(e))
            return
        tracer.end()
        outs = checks.check(out, inputs)
        # Copied to host memory under the turn; the files are written without it.
        after = host_values(inputs) if back or not same_values(torch, before, inputs) else []
        # A seeded case has no files of the reference's to compare with:
        # the inputs as the call got them go with the changed ones.
        before = host_values(before) if seeded and after else None
        outs = host_values([o for o in outs if isinstance(o, T.Tensor)])
        out = None
        device_idle()
        if before is not None:
            handed = write_values(torch, before, prefix + "b")
        extra = dict(digest, inputs_before=handed) if handed is not None else digest
        send("call", kind="correctness", shape=i, case=c["case"], outputs=write_values(torch, outs, prefix + "o"),
             inputs_after=write_values(torch, after, prefix + "a") if after else [], **extra)

    def settle_for_mode(self, base):
        """On the CPU, the allocator's pool sized for what a mode keeps alive
        (fresh inputs) and room for outputs."""
        if self.device == "cpu":
            call_bytes = tensor_bytes(self.torch, base)
            settle_host_allocator(self.torch, min(int(CONFIG["keep_alive_bytes"]),
                                                  (CONFIG["warmup"] + CONFIG["trials"]) * call_bytes)
                                  + max(HOST_POOL_MARGIN, 4 * call_bytes))

    def timing(self, i, mode, model, base, first_inputs):
        """One timing mode: warm-up, then each timed call started by the
        runner ("go") and reported at once; the runner says after each call
        whether it checks that call's output ("keep"), so no call knows
        whether it will be checked. Returns the mode's summary, sent once
        every mode is done and the device is shared again (send_summary)."""
        torch, problem, tracer = self.torch, self.problem, self.tracer
        checks = OutputChecks(torch)
        self.settle_for_mode(base)
        send("mode_start", shape=i, mode=mode)
        self.expect(("go",), "start the mode")
        for w in range(CONFIG["warmup"]):
            tracer.begin("warmup", i, mode, w)
            out = model(*base)
            sync(torch)
            tracer.end()
            checks.check(out, base)
        # bench: the benchmark's question is the first case's, every call, so
        # a kept call is checked against those inputs even when the submission
        # changed them in an earlier call (inputs scaled in place, an output
        # written over one), unless the reference itself changes them. fresh
        # and rewrite (and that case): the inputs as the call sees them.
        named = mode == "bench" and i not in CONFIG.get("reference_changes_inputs", [])
        # fresh and rewrite on a shape whose inputs a seed reproduces: the
        # reference draws a kept call's inputs again from its seed, so they
        # are neither copied nor written here.
        seeded = mode != "bench" and i in CONFIG.get("seeded_shapes", [])
        kept, kept_bytes, pending = [], 0, []
        versions_moved = 0
        # Each call's seed comes from the runner only once the call before it
        # returned: no fresh or rewrite input can be known ahead.
        send("warm_done", shape=i, mode=mode)
        line = receive()
        while line == "null":  # the runner's clock on the harness's own work (null_call)
            self.null_call(i, mode)
            line = receive()
        seed = int(line)
        out = outs = None
        for k in range(CONFIG["trials"]):
            call_seed = seed
            if mode == "bench":
                args = base
            elif mode == "fresh":
                args = problem.gen_inputs(seed)
                kept.append(args)  # kept alive so that addresses really differ
                kept_bytes += tensor_bytes(torch, args)
                while kept_bytes > CONFIG["keep_alive_bytes"] and len(kept) > 1:
                    kept_bytes -= tensor_bytes(torch, kept.pop(0))
            else:  # rewrite: new values in the warm-up storage, version counters untouched
                for b, v in zip(base, problem.gen_inputs(seed)):
                    if isinstance(b, T.Tensor):
                        version = b._version
                        T.copy_(b.data, v)
                        versions_moved += b._version != version
                args = base
            before = None if named or seeded else [clone_tensor(torch, v) for v in args]
            digest = inputs_digest(args) if seeded else None
            # Earlier outputs are let go only now, once this call's inputs are
            # made: in every mode the call's own allocations then reuse what
            # an earlier output held (already faulted in, on the CPU; no new
            # segment from the device, on a GPU), so the modes differ in the
            # inputs' identity and contents only, not in the memory state
            # (before, fresh inputs took the freed output's memory and each
            # fresh call paid for new pages: 33x on an honest x * s + b).
            out = outs = None
            checks.let_go()
            # The cache is flushed before the runner's clock starts: writing
            # a buffer twice the size of the last-level cache takes tens of
            # ms on a CPU with a large one, which the clock check would
            # otherwise take for work hidden from the timer (timing-forged).
            self.flush()
            sync(torch)
            send("call_ready", shape=i, mode=mode, call=k)
            self.expect(("go",), "start the call")
            out, ms = self.timed(model, args, mode, i, k)
            send("timed", shape=i, mode=mode, call=k, ms=ms)
            outs = checks.check(out, args)
            answer = receive().split()
            if len(answer) != 2 or answer[0] not in ("keep", "next"):
                raise RuntimeError("the runner did not say whether the call is checked")
            seed = int(answer[1])
            if answer[0] == "keep":
                entry = {"call": k, "outputs": [T.clone(o) for o in outs if isinstance(o, T.Tensor)]}
                if seeded:
                    entry["seed"], entry["digest"] = call_seed, digest
                else:
                    entry["named" if named else "inputs"] = first_inputs if named else before
                pending.append(entry)
            del before
        out = outs = None
        del kept
        send("mode_end", shape=i, mode=mode)
        # The kept calls stay on the device (host memory is the scarcer where
        # runs share a machine); their files are written once it is shared again.
        return {"shape": i, "mode": mode, "pending": pending, "counts": checks.counts,
                "types": sorted(checks.types), "versions_moved": versions_moved}

    def send_summary(self, summary):
        torch = self.torch
        i, mode = summary["shape"], summary["mode"]
        sampled = []
        device_turn()  # copied to host memory under a turn; the files are written without it
        for entry in summary["pending"]:
            entry["outputs"] = host_values(entry["outputs"])
            if "inputs" in entry:
                entry["inputs"] = host_values(entry["inputs"])
        device_idle()
        for entry in summary["pending"]:
            prefix = os.path.join(self.outputs_dir, "t_s%d_%s_%d_" % (i, mode, entry["call"]))
            sample = {"call": entry["call"], "outputs": write_values(torch, entry["outputs"], prefix + "o")}
            if "seed" in entry:
                sample["seed"], sample["inputs_digest"] = entry["seed"], entry["digest"]
            else:
                sample["inputs"] = (entry["named"] if "named" in entry
                                    else write_values(torch, entry["inputs"], prefix + "i"))
            sampled.append(sample)
        send("timing", shape=i, mode=mode, samples=sampled, counts=summary["counts"],
             types=summary["types"], versions_moved=summary["versions_moved"])

    def off_grid(self, i):
        """The calls of an off-grid shape (input probes): a model made for it,
        then its cases like any correctness case. A model that refuses the
        shape answers for every case."""
        self.problem.apply_shape(i)
        device_turn()
        with self.torch.no_grad():
            try:
                model = self.problem.make_model(self.cls)
            except Exception as e:  # noqa: BLE001 - evidence for the runner, not an error
                for c in self.by_shape.get(i, []):
                    send("call", kind="correctness", shape=i, case=c["case"], outputs=[], inputs_after=[],
                         raised=raised_by(e))
                return
            self.correctness(i, model)
            del model

    def check_shape(self, i):
        """Graded shape i: its model, its correctness cases, the stream-order
        probe and the op record. Returns (shape, model, first case's inputs),
        kept for the timing modes."""
        torch, problem = self.torch, self.problem
        problem.apply_shape(i)
        with torch.no_grad():
            model = problem.make_model(self.cls)
            files = self.correctness(i, model)
            check_seals(self.sealed, self.tampered, "correctness")
            device_turn()  # correctness() ends with its files, the device set aside
            base = read_values(torch, self.by_shape[i][0]["inputs"], self.device, files)
            del files
            if self.device == "cuda":
                self.stream_order_probe(model, base, i)
            # What ATen runs for the first case's inputs (never in a graded
            # call), then for one untimed call per timing mode on inputs of
            # its kind (fresh: new ones, from a seed of the harness's own):
            # here, while the device is shared, since the recorder costs
            # Python per op.
            record_ops(torch, self.tracer, model, base, i, "first-case")
            for mode in CONFIG["modes"]:
                device_turn()
                record_ops(torch, self.tracer, model,
                           problem.gen_inputs(int(_token_hex(4), 16)) if mode == "fresh" else base, i, mode)
        return i, model, base

    def run(self):
        torch, problem = self.torch, self.problem
        sealed, tampered = self.sealed, self.tampered
        # The off-grid shapes follow the graded ones, numbered on from them.
        graded = len(problem.shapes)
        problem.shapes += [dict(p["values"]) for p in CONFIG.get("probe_shapes", [])]
        phase = "setup"
        note_memory_phase(torch, "import")  # what the solution's import and set-up allocated
        try:
            timed_shapes = []  # (shape, model, first case's inputs), kept for the timing modes
            for i in range(graded):
                phase = "correctness"
                send("phase", phase=phase, shape=i)
                timed_shapes.append(self.check_shape(i))
                note_memory_phase(torch, "correctness")
            # Every shape's timing modes back to back: a run sharing the device
            # has it alone from its first mode_start to its next yield point, so
            # the device changes hands once per run, not once per shape and mode.
            summaries = []
            for i, model, base in timed_shapes:
                problem.apply_shape(i)
                with torch.no_grad():
                    for mode in CONFIG["modes"]:
                        phase = "timing"
                        send("phase", phase=phase, shape=i, mode=mode)
                        summaries.append(self.timing(i, mode, model, base, self.by_shape[i][0]["inputs"]))
                        check_seals(sealed, tampered, "timing")
            note_memory_phase(torch, "timing")
            timed_shapes = model = base = None  # let the models and inputs go
            if self.device == "cuda":
                torch.cuda.empty_cache()
            device_turn()  # the device is shared again (the kept calls' files are written now)
            # A phase of its own: the last mode's time would otherwise hold
            # the kept calls' files (2.6 to 3.4 s of an MoE run's last mode).
            phase = "samples"
            send("phase", phase=phase)
            while summaries:  # each mode's copies go once written
                self.send_summary(summaries.pop(0))
            note_memory_phase(torch, "samples")
            for i in range(graded, len(problem.shapes)):
                phase = "probe"
                send("phase", phase=phase, shape=i)
                self.off_grid(i)
                check_seals(sealed, tampered, "probe")
            note_memory_phase(torch, "probe")
            # Encode the records now, while nothing waits: the runner gives the
            # process 5 s to exit after "done", and the exit's finish() then has
            # little left to write.
            self.tracer.flush()
        except BaseException as e:
            fail(phase, e)
            return
        check_seals(sealed, tampered, "end")
        send("done", device_memory=device_memory(self.torch))
