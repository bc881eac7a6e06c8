#!/usr/bin/env python3
"""Throughput of one corpus call on the GPU machine (issue 17): submissions
per GPU-hour and the share of the call's wall time the GPUs were busy.

    tests/gpu/corpus_throughput.py BATCH_DIR --since EPOCH_S --until EPOCH_S \
        [--gpu-util FILE] [--gpus N] [--grader-summary FILE | --grader-seconds S]

Counts the runs of BATCH_DIR whose run.json was written between --since and
--until (a resumed batch holds earlier calls' runs too), and reads
--gpu-util, the CSV that `nvidia-smi --query-gpu=timestamp,index,utilization.gpu,
memory.used,memory.total --format=csv,noheader,nounits -l 1` writes: NVML's
utilization is the share of each sample period in which a kernel ran, and the
device memory's peak says whether runs side by side filled it (a run that
fails for device memory is retried alone, at the end of the batch). With upstream's grader time per
submission (check.py and benchmark.py, one after the other on one GPU: the
mean `grader_seconds` of tests/gpu/grader_compare.sh's summary.json, or a
figure), also the rate the grader itself reaches run sequentially, and
kaudit's rate over it. Also where the runs' time went (run.json `phases`,
summed, and the reference's steps by part) and each problem's device memory
per run (run.json `device_memory`: the two processes' reserved peaks summed,
and each phase's allocated peak), and the timing modes over issue 27's budget
(2 s plus twice the mode's timed calls). Prints one JSON object.
"""
import argparse
import json
import os
import statistics
import sys


def finished_runs(batch, since, until):
    runs = []
    for name in sorted(os.listdir(batch)):
        path = os.path.join(batch, name, "run.json")
        try:
            written = os.path.getmtime(path)
        except OSError:
            continue
        if not since <= written <= until:
            continue
        try:
            with open(path) as f:
                run = json.load(f)
        except (OSError, ValueError) as e:
            print(f"corpus_throughput: skipping {path}: {e}", file=sys.stderr)
            continue
        runs.append(run)
    return runs


def number(text):
    try:
        return float(text)
    except ValueError:
        return None  # a header, or "[N/A]"


def gpu_samples(path):
    """The mean utilization over every sample of every GPU, as a share (None
    without samples), the number of samples, and the device memory's peak
    use and size in MiB (None where the CSV has no memory columns)."""
    busy, peak, total = [], None, None
    with open(path) as f:
        for line in f:
            fields = [x.strip() for x in line.split(",")]
            if len(fields) >= 3 and number(fields[2]) is not None:
                busy.append(number(fields[2]) / 100.0)
            if len(fields) >= 5 and number(fields[3]) is not None and number(fields[4]) is not None:
                if peak is None or number(fields[3]) > peak:
                    peak, total = number(fields[3]), number(fields[4])
    share = statistics.fmean(busy) if busy else None
    return share, len(busy), peak, total


def grader_seconds(summary_path):
    """The mean grader time (check + benchmark) of a grader comparison's pairs; None without one."""
    with open(summary_path) as f:
        problems = json.load(f).get("problems", [])
    times = [p["grader_seconds"] for p in problems
             if isinstance(p.get("grader_seconds"), (int, float)) and p["grader_seconds"] > 0]
    return (statistics.fmean(times), len(times)) if times else (None, 0)


def where_time_went(runs):
    """Seconds summed over the runs by "process phase", and by part where a
    phase has parts (run.json `phases[]`'s `parts`: the reference's import,
    inputs and expected outputs, the submission's start)."""
    phases, parts = {}, {}
    for r in runs:
        for p in r.get("phases", []):
            key = "%s %s" % (p.get("process"), p.get("phase"))
            phases[key] = phases.get(key, 0.0) + p.get("seconds", 0.0)
            for part, s in (p.get("parts") or {}).items():
                parts.setdefault(key, {})[part] = parts.get(key, {}).get(part, 0.0) + s
    rounded = lambda d: {k: round(v, 1) for k, v in sorted(d.items())}
    return rounded(phases), {k: rounded(v) for k, v in sorted(parts.items())}


def run_path(runs):
    """Medians over the runs that date their steps (run.json `phases[].began_s`,
    seconds from the run's start) of when a run's path reached each point:
    the reference's inputs done, the submission's set-up done, its first call
    begun, and what came after its last step (the expected outputs, the
    comparison, the trace). Where these differ is what each waited for."""
    points = {}
    for r in runs:
        steps = [p for p in r.get("phases", []) if isinstance(p.get("began_s"), (int, float))]
        if not steps:
            continue
        end = lambda p: p["began_s"] + p.get("seconds", 0.0)
        found = {
            "reference_inputs_done_s": [end(p) for p in steps if (p.get("process"), p.get("phase")) == ("reference", "inputs")],
            "submission_set_up_done_s": [end(p) for p in steps if (p.get("process"), p.get("phase")) == ("submission", "setup")],
            "submission_first_call_s": [p["began_s"] for p in steps
                                        if (p.get("process"), p.get("phase")) == ("submission", "correctness")],
            "after_submission_s": [r.get("seconds", 0.0) - max(end(p) for p in steps if p.get("process") == "submission")]
            if any(p.get("process") == "submission" for p in steps) else [],
        }
        for key, values in found.items():
            if values:
                points.setdefault(key, []).append(min(values) if key == "submission_first_call_s" else max(values))
    return {key: round(statistics.median(v), 1) for key, v in sorted(points.items())}


def device_memory_by_problem(runs):
    """Per problem, the largest sum of one run's two processes' reserved peaks
    (run.json `device_memory`, MiB): an upper bound of what the run held, as
    the two peaks need not coincide (kaudit audit's budget takes the larger
    peak and a base per process, audit/device_memory.h)."""
    peaks = {}
    for r in runs:
        memory = r.get("device_memory") or {}
        mib = sum((memory.get(p) or {}).get("peak_reserved_mib", 0.0) for p in ("reference", "submission"))
        name = (r.get("problem") or {}).get("name", "?")
        if mib > 0:
            peaks[name] = max(peaks.get(name, 0.0), round(mib, 1))
    return dict(sorted(peaks.items()))


def device_memory_phases_by_problem(runs):
    """Per problem, the largest allocated peak (MiB) of each process's phase
    (run.json `device_memory`'s `<phase>_peak_allocated_mib`), keyed "process
    phase": where a run's footprint is."""
    peaks = {}
    for r in runs:
        name = (r.get("problem") or {}).get("name", "?")
        for process, memory in sorted((r.get("device_memory") or {}).items()):
            for key, mib in (memory or {}).items():
                if key.endswith("_peak_allocated_mib") and key != "peak_allocated_mib":
                    phase = "%s %s" % (process, key[:-len("_peak_allocated_mib")])
                    by_phase = peaks.setdefault(name, {})
                    by_phase[phase] = max(by_phase.get(phase, 0.0), round(mib, 1))
    return {name: dict(sorted(p.items())) for name, p in sorted(peaks.items())}


def timing_mode_budget(runs):
    """Issue 27's budget per timing mode: each of the submission's `timing`
    phases (a shape and mode, run.json `phases`) against 2 s plus twice its
    timed calls' own time (`timing[].modes`: mean_ms times n). The modes
    counted, and those over it."""
    modes, over = 0, []
    for r in runs:
        timed = {}
        for t in r.get("timing", []):
            for mode, m in (t.get("modes") or {}).items():
                if isinstance(m, dict) and isinstance(m.get("mean_ms"), (int, float)) and isinstance(m.get("n"), int):
                    timed[(t.get("shape_index"), mode)] = m["mean_ms"] * m["n"] / 1000.0
        for p in r.get("phases", []):
            calls_s = timed.get((p.get("shape"), p.get("mode")))
            if p.get("process") != "submission" or p.get("phase") != "timing" or calls_s is None:
                continue
            modes += 1
            if p.get("seconds", 0.0) > 2.0 + 2.0 * calls_s:
                over.append({"problem": (r.get("problem") or {}).get("name", "?"), "shape": p.get("shape"),
                             "mode": p.get("mode"), "seconds": round(p.get("seconds", 0.0), 2),
                             "timed_calls_s": round(calls_s, 3)})
    return {"modes": modes, "over": over}


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("batch")
    ap.add_argument("--since", type=float, required=True, help="the call's start, seconds since the epoch")
    ap.add_argument("--until", type=float, required=True, help="the call's end, seconds since the epoch")
    ap.add_argument("--gpu-util", help="nvidia-smi's utilization samples (CSV)")
    ap.add_argument("--gpus", type=int, default=1)
    grader = ap.add_mutually_exclusive_group()
    grader.add_argument("--grader-summary", help="tests/gpu/grader_compare.sh's summary.json")
    grader.add_argument("--grader-seconds", type=float, help="upstream's check + benchmark seconds a submission")
    a = ap.parse_args(argv)
    if a.until <= a.since:
        ap.error("--until must be after --since")
    runs = finished_runs(a.batch, a.since, a.until)
    wall_s = a.until - a.since
    out = {
        "runs_finished": len(runs),
        "wall_s": round(wall_s, 1),
        "gpus": a.gpus,
        "submissions_per_gpu_hour": round(len(runs) / (wall_s * a.gpus / 3600.0), 1),
    }
    if runs:
        out["median_run_s"] = round(statistics.median(r.get("seconds", 0.0) for r in runs), 1)
        out["median_device_wait_s"] = round(statistics.median(r.get("device_wait_seconds", 0.0) for r in runs), 1)
        out["phases_s"], out["phase_parts_s"] = where_time_went(runs)
        out["device_memory_peak_mib_by_problem"] = device_memory_by_problem(runs)
        out["device_memory_phase_peaks_mib_by_problem"] = device_memory_phases_by_problem(runs)
        out["timing_mode_budget"] = timing_mode_budget(runs)
        if path := run_path(runs):
            out["run_path_median_s"] = path
    if a.gpu_util:
        share, n, peak, total = gpu_samples(a.gpu_util)
        out["gpu_busy_share"] = None if share is None else round(share, 3)
        out["gpu_util_samples"] = n
        if peak is not None:
            out["gpu_memory_peak_mib"], out["gpu_memory_total_mib"] = peak, total
    per_submission_s, pairs = (a.grader_seconds, None) if a.grader_seconds else (None, 0)
    if a.grader_summary:
        per_submission_s, pairs = grader_seconds(a.grader_summary)
    if per_submission_s and per_submission_s > 0:
        upstream = 3600.0 / per_submission_s
        out["upstream_sequential_per_gpu_hour"] = round(upstream, 1)
        out["over_upstream_sequential"] = round(out["submissions_per_gpu_hour"] / upstream, 2)
        if pairs is not None:
            out["grader_pairs"] = pairs
    print(json.dumps(out, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
