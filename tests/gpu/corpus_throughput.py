#!/usr/bin/env python3
"""Throughput of one corpus call on the GPU machine (issue 17): submissions
per GPU-hour and the share of the call's wall time the GPUs were busy.

    tests/gpu/corpus_throughput.py BATCH_DIR --since EPOCH_S --until EPOCH_S \
        [--gpu-util FILE] [--gpus N]

Counts the runs of BATCH_DIR whose run.json was written between --since and
--until (a resumed batch holds earlier calls' runs too), and reads
--gpu-util, the CSV that `nvidia-smi --query-gpu=timestamp,index,utilization.gpu
--format=csv,noheader,nounits -l 1` writes: NVML's utilization is the share
of each sample period in which a kernel ran. Prints one JSON object.
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


def gpu_busy_share(path):
    """The mean utilization over every sample of every GPU, as a share; None without samples."""
    samples = []
    with open(path) as f:
        for line in f:
            fields = [x.strip() for x in line.split(",")]
            if len(fields) >= 3:
                try:
                    samples.append(float(fields[2]) / 100.0)
                except ValueError:
                    pass  # a header, or "[N/A]"
    return (statistics.fmean(samples), len(samples)) if samples else (None, 0)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("batch")
    ap.add_argument("--since", type=float, required=True, help="the call's start, seconds since the epoch")
    ap.add_argument("--until", type=float, required=True, help="the call's end, seconds since the epoch")
    ap.add_argument("--gpu-util", help="nvidia-smi's utilization samples (CSV)")
    ap.add_argument("--gpus", type=int, default=1)
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
    if a.gpu_util:
        share, n = gpu_busy_share(a.gpu_util)
        out["gpu_busy_share"] = None if share is None else round(share, 3)
        out["gpu_util_samples"] = n
    print(json.dumps(out, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
