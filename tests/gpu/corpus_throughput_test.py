#!/usr/bin/env python3
"""tests/gpu/corpus_throughput.py on a batch made here: only the runs written
during the call count, and the figures follow from them (no GPU needed)."""
import json
import os
import subprocess
import sys
import tempfile

script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus_throughput.py")
with tempfile.TemporaryDirectory() as batch:
    since, until = 1_000_000.0, 1_000_360.0  # a call of 6 minutes
    for name, written, seconds, wait in [("a", 1_000_100, 40.0, 5.0), ("b", 1_000_300, 60.0, 15.0),
                                         ("c", 999_000, 10.0, 1.0)]:  # c: an earlier call's
        os.mkdir(os.path.join(batch, name))
        path = os.path.join(batch, name, "run.json")
        inputs_s, parts, memory = {"a": (3.0, {"draw": 1.0, "files": 2.0}, (1000.0, 3000.0)),
                                   "b": (2.0, {"draw": 0.5}, (500.0, None))}.get(name, (0.0, {}, (None, None)))
        run = {"seconds": seconds, "device_wait_seconds": wait, "problem": {"name": "moe"},
               "phases": [{"process": "reference", "phase": "inputs", "seconds": inputs_s, "parts": parts}],
               "device_memory": {process: {"peak_reserved_mib": mib, "timing_peak_allocated_mib": mib / 2,
                                           "peak_allocated_mib": mib}
                                 for process, mib in zip(("reference", "submission"), memory) if mib}}
        if name == "a":  # two modes of 20 calls of 10 ms: bench within 2 s + 2 x 0.2 s, fresh over it
            run["timing"] = [{"shape_index": 0, "modes": {m: {"mean_ms": 10.0, "n": 20} for m in ("bench", "fresh")}}]
            run["phases"] += [{"process": "submission", "phase": "timing", "shape": 0, "mode": m, "seconds": s}
                              for m, s in (("bench", 1.0), ("fresh", 3.0))]
        with open(path, "w") as f:
            json.dump(run, f)
        os.utime(path, (written, written))
    os.mkdir(os.path.join(batch, "unfinished"))  # no run.json
    util = os.path.join(batch, "util.csv")
    with open(util, "w") as f:
        f.write("2026/12/04 10:00:00.000, 0, 100\n2026/12/04 10:00:01.000, 0, 50\n"
                "2026/12/04 10:00:02.000, 0, [N/A]\n2026/12/04 10:00:03.000, 0, 0\n")
    got = json.loads(subprocess.run([sys.executable, script, batch, "--since", str(since), "--until", str(until),
                                     "--gpu-util", util], check=True, capture_output=True, text=True).stdout)
    want = {"runs_finished": 2, "wall_s": 360.0, "gpus": 1, "submissions_per_gpu_hour": 20.0,
            "median_run_s": 50.0, "median_device_wait_s": 10.0, "gpu_busy_share": 0.5, "gpu_util_samples": 3,
            # where the two runs' time went, and the most one MoE run's two processes reserved
            "phases_s": {"reference inputs": 5.0, "submission timing": 4.0}, "phase_parts_s": {"reference inputs": {"draw": 1.5, "files": 2.0}},
            "device_memory_peak_mib_by_problem": {"moe": 4000.0},
            # each phase's allocated peak, the larger of the two runs'
            "device_memory_phase_peaks_mib_by_problem": {"moe": {"reference timing": 500.0,
                                                                 "submission timing": 1500.0}},
            "timing_mode_budget": {"modes": 2, "over": [{"problem": "moe", "shape": 0, "mode": "fresh", "seconds": 3.0,
                                                          "timed_calls_s": 0.2}]}}
    if got != want:
        sys.exit(f"FAIL: {got} != {want}")
    # With the device memory's columns: its peak use, and the device's size.
    with open(util, "w") as f:
        f.write("2026/12/06 10:00:00.000, 0, 100, 70000, 81559\n2026/12/06 10:00:01.000, 0, 50, 81000, 81559\n"
                "2026/12/06 10:00:02.000, 0, 0, [N/A], 81559\n")
    got = json.loads(subprocess.run([sys.executable, script, batch, "--since", str(since), "--until", str(until),
                                     "--gpu-util", util], check=True, capture_output=True, text=True).stdout)
    if (got.get("gpu_memory_peak_mib"), got.get("gpu_memory_total_mib"), got.get("gpu_util_samples")) \
            != (81000.0, 81559.0, 3):
        sys.exit(f"FAIL: device memory: {got}")
    # Upstream's grader, one submission after another: 20 and 40 s (a pair without a time is left out).
    summary = os.path.join(batch, "summary.json")
    with open(summary, "w") as f:
        json.dump({"problems": [{"grader_seconds": 20.0}, {"grader_seconds": 40.0}, {"check": {}}]}, f)
    got = json.loads(subprocess.run([sys.executable, script, batch, "--since", str(since), "--until", str(until),
                                     "--grader-summary", summary], check=True, capture_output=True, text=True).stdout)
    if (got.get("upstream_sequential_per_gpu_hour"), got.get("over_upstream_sequential"), got.get("grader_pairs")) \
            != (120.0, 0.17, 2):
        sys.exit(f"FAIL: against upstream's grader: {got}")
    # Runs that date their steps: when each reached its first call, and what came after its last step.
    for name, shift in (("a", 0.0), ("b", 10.0)):
        path = os.path.join(batch, name, "run.json")
        with open(path) as f:
            run = json.load(f)
        run["phases"] = [
            {"process": "reference", "phase": "inputs", "began_s": 5.0 + shift, "seconds": 7.0},
            {"process": "submission", "phase": "start", "began_s": 0.0, "seconds": 9.0},
            {"process": "submission", "phase": "setup", "began_s": 9.0, "seconds": 1.0 + shift},
            {"process": "submission", "phase": "correctness", "shape": 1, "began_s": 20.0 + shift, "seconds": 2.0},
            {"process": "submission", "phase": "correctness", "shape": 0, "began_s": 12.0 + shift, "seconds": 8.0},
            {"process": "reference", "phase": "expected outputs", "began_s": 22.0 + shift, "seconds": 4.0}]
        with open(path, "w") as f:
            json.dump(run, f)
        os.utime(path, (until - 1, until - 1))
    got = json.loads(subprocess.run([sys.executable, script, batch, "--since", str(since), "--until", str(until)],
                                    check=True, capture_output=True, text=True).stdout)
    # a: 40 s, last submission step done at 22; b: 60 s, at 32
    want_path = {"reference_inputs_done_s": 17.0, "submission_set_up_done_s": 15.0, "submission_first_call_s": 17.0,
                 "after_submission_s": 23.0}
    if got.get("run_path_median_s") != want_path:
        sys.exit(f"FAIL: the run's path: {got.get('run_path_median_s')} != {want_path}")
    bad = subprocess.run([sys.executable, script, batch, "--since", "5", "--until", "5"], capture_output=True, text=True)
    if bad.returncode != 2 or "--until must be after --since" not in bad.stderr:
        sys.exit(f"FAIL: an empty call was not refused: {bad.returncode} {bad.stderr}")
print("corpus_throughput: ok")
