"""Overhead of the tracer, measured side by side (docs/performance.md).

    python3 tracer_overhead.py measure MODE RESULTS.jsonl
        MODE: none (no tracer), kaudit (run under `kaudit trace`),
        kaudit-api, kaudit-activity, kaudit-kernels and kaudit-none (the same
        with KAUDIT_TRACE_PARTS=api, activity, kernels or none: one part of
        the tracer each, or a bare subscriber, to see where its cost is),
        profiler (torch.profiler with CUDA activities around the loops).
        Appends one JSON line to RESULTS.jsonl.
    python3 tracer_overhead.py summarize RESULTS.jsonl [TRACE.json]
        Medians per mode, added host time per launch and GPU time ratios
        against `none`; with TRACE.json (the kaudit run's trace document),
        also checks that every tiny launch was recorded.

Loop 1: 10,000 launches of a tiny Triton kernel; host time per launch is the
wall time of the launch loop divided by 10,000 (five repetitions, median).
The wait for the GPU after each loop is kept too (drain_us): when it is long,
the GPU, not the host, set the loop's pace.
Loop 2: a bandwidth-bound kernel moving about 1 GiB (read 512 MiB, write
512 MiB); GPU time from CUDA events (twenty runs, median).
"""
import contextlib
import json
import statistics
import sys
import time

LAUNCHES = 10_000
REPS = 5
BW_RUNS = 20


def measure(mode, results_path):
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def kaudit_tiny(x_ptr, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        tl.store(x_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + 1.0, mask=mask)

    x = torch.zeros(1024, device="cuda")
    big_in = torch.randn(128 << 20, device="cuda")  # 512 MiB of float32
    big_out = torch.empty_like(big_in)
    for _ in range(1000):  # compile, load, warm the caches
        kaudit_tiny[(1,)](x, 1024, BLOCK=1024)
    for _ in range(3):
        torch.add(big_in, 1.0, out=big_out)
    torch.cuda.synchronize()

    context = contextlib.nullcontext()
    if mode == "profiler":
        from torch.profiler import ProfilerActivity, profile
        context = profile(activities=[ProfilerActivity.CUDA])

    launch_us = []
    drain_us = []  # the wait for the GPU after a loop: large if the loop outran it
    bw_ms = []
    with context:
        for _ in range(REPS):
            torch.cuda.synchronize()
            t0 = time.perf_counter_ns()
            for _ in range(LAUNCHES):
                kaudit_tiny[(1,)](x, 1024, BLOCK=1024)
            t1 = time.perf_counter_ns()
            torch.cuda.synchronize()
            t2 = time.perf_counter_ns()
            launch_us.append((t1 - t0) / LAUNCHES / 1000.0)
            drain_us.append((t2 - t1) / 1000.0)
        for _ in range(BW_RUNS):
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            torch.add(big_in, 1.0, out=big_out)
            end.record()
            torch.cuda.synchronize()
            bw_ms.append(start.elapsed_time(end))
    moved = 2 * big_in.numel() * big_in.element_size()
    result = {
        "mode": mode,
        "launch_us_median": statistics.median(launch_us),
        "launch_us": launch_us,
        "drain_us": drain_us,
        "bw_ms_median": statistics.median(bw_ms),
        "bw_ms": bw_ms,
        "bw_bytes": moved,
        "bw_tb_per_s": moved / (statistics.median(bw_ms) / 1e3) / 1e12,
        "tiny_launches": 1000 + REPS * LAUNCHES,
    }
    with open(results_path, "a") as f:
        f.write(json.dumps(result) + "\n")
    print(json.dumps({k: v for k, v in result.items() if not isinstance(v, list)}))


def summarize(results_path, trace_path=None):
    runs = [json.loads(line) for line in open(results_path) if line.strip()]
    by_mode = {}
    for r in runs:
        by_mode.setdefault(r["mode"], []).append(r)
    summary = {"runs": len(runs), "modes": {}}
    for mode, rs in by_mode.items():
        summary["modes"][mode] = {
            "processes": len(rs),
            "launch_us": statistics.median([v for r in rs for v in r["launch_us"]]),
            "bw_ms": statistics.median([v for r in rs for v in r["bw_ms"]]),
        }
    base = summary["modes"].get("none")
    if base:
        for mode, m in summary["modes"].items():
            m["added_us_per_launch"] = m["launch_us"] - base["launch_us"]
            m["gpu_time_ratio"] = m["bw_ms"] / base["bw_ms"]
    if trace_path:
        doc = json.load(open(trace_path))
        tiny = sum(1 for p in doc["processes"] for k in p["kernels"] if k["name"] == "kaudit_tiny")
        bw = [k for p in doc["processes"] for k in p["kernels"] if "elementwise" in k.get("demangled", k["name"])
              and k["end"] - k["start"] > 50_000]
        launchers = sorted({k.get("library", "?") for p in doc["processes"] for k in p["kernels"]
                            if k["name"] == "kaudit_tiny"})
        summary["kaudit_trace"] = {
            "tiny_kernels_recorded": tiny,
            "tiny_launches_made": by_mode["kaudit"][0]["tiny_launches"] if "kaudit" in by_mode else None,
            "tiny_kernel_libraries": launchers,
            "bandwidth_kernels_recorded": len(bw),
            "notes": [n["text"] for p in doc["processes"] for n in p["notes"]],
        }
    k = summary["modes"].get("kaudit", {})
    p = summary["modes"].get("profiler", {})
    summary["checks"] = {
        "added_us_per_launch_at_most_1": k.get("added_us_per_launch", 99) <= 1.0,
        "gpu_time_ratio_at_most_1.02": k.get("gpu_time_ratio", 99) <= 1.02,
        "kaudit_below_profiler": k.get("added_us_per_launch", 99) < p.get("added_us_per_launch", -99),
    }
    print(json.dumps(summary, indent=1))
    return summary


if __name__ == "__main__":
    if sys.argv[1] == "measure":
        measure(sys.argv[2], sys.argv[3])
    else:
        s = summarize(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
        sys.exit(0 if all(s["checks"].values()) else 1)
