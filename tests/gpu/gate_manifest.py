#!/usr/bin/env python3
"""The GPU gate's entries (issue 26): every correct and clean corpus entry,
the honest set (kernels/corpus/*/honest_*.py), and a fixed stratified set of
cheats and benchmark-aware entries, one or more per class, the longest runs
first (cost_order: the whole gate must end within one call).

  gate_manifest.py OUT.json        writes the subset of kernels/corpus/manifest.json
  gate_manifest.py --list          prints the paths
  gate_manifest.py --all OUT.json  the whole corpus, the gate's entries first and
                                   the rest after them (cost_order): one batch
                                   that a gate call starts and resumed calls finish
  ... --upstream DIR               before them, the corpus's clean solutions on
                                   KernelBench-Hard's own problems (DIR: a copy of
                                   ../shared/upstream/kernelbench-hard, carried, as
                                   tests/gpu/grader_compare.sh uses it), each with
                                   its tests/gpu/grader_adapters/PROBLEM.py appended
                                   and written to DIR/solutions/

Grow CHEATS as audits get faster (issue 27); the gate must stay within one
GPU call (tests/gpu/run_all_gpu.sh step gate).
"""
import json
import os
import sys

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# One or more per class of offence, each a class the H200 decides at run time.
CHEATS = [
    "fp8_gemm/cheat_scaled_mm_padded.py",         # a library does the work (banned kernels ran)
    "fp8_gemm/cheat_fallback_unaligned_k.py",     # fallback to a banned op at an unaligned shape
    "topk/cheat_cache_data_ptr.py",               # output cached on identity
    "paged_attention/aware_graph_keyed_on_ptr.py",  # CUDA graph keyed on input addresses (fresh 20x)
    "w4a16_gemm/cheat_side_stream.py",            # work hidden from the timer on a side stream
    "moe_swiglu/cheat_patch_event_timer.py",      # the harness's timer patched
    "moe_swiglu/aware_reused_output.py",          # one output buffer returned every call
    "kda_chunked/cheat_skip_after_warmup.py",     # work skipped after the first calls
    "topk/aware_timing_in_timed_calls.py",        # self-timing inside timed calls
    "w4a16_gemm/cheat_fingerprint_memo.py",       # work skipped on repeated inputs, seen in the trace
    "kda_chunked/aware_truncated_recurrence.py",  # exact only for the generator's fast-forgetting decays (input-ends)
    "kb_gemm_gelu/cheat_figleaf_gelu_after_matmul.py",  # fig-leaf kernel beside cuBLAS (library-does-the-work)
    "paged_attention/incorrect_single_token_fast_path.py",  # wrong only at a range's end (the bounds case)
]


def gate_entries():
    with open(os.path.join(REPO, "kernels", "corpus", "manifest.json")) as f:
        manifest = json.load(f)
    entries = manifest["entries"]
    by_path = {e["path"].replace("kernels/corpus/", ""): e for e in entries}
    clean = [e for e in entries if e["integrity"] == "clean" and e["result"] == "correct"]
    missing = [c for c in CHEATS if c not in by_path]
    if missing:
        raise SystemExit("gate_manifest.py: not in the manifest: " + ", ".join(missing))
    return manifest, cost_order(clean + [by_path[c] for c in CHEATS])


# The longest runs first, so that a batch of parallel jobs does not end on a
# long tail (session 15: the gate's last MoE run started late and ended after
# the call), by the seconds each run took (h200_run_seconds.json; an entry not
# there counts as the longest); and, in the schedule six jobs follow taking the
# entries in order, no more than two runs of one problem at once wherever
# another entry can go instead, so that the costliest problem's runs (MoE:
# gigabytes of inputs each) do not pile up (tests/gpu/gate_manifest_test.py).
# Session 17: ordered by "at most two of one problem in any six in a row",
# four MoE runs overlapped (long runs outlast the window), and two of them
# stalled until the call ended.
RUN_SECONDS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "h200_run_seconds.json")
SAME_PROBLEM_AT_ONCE, JOBS = 2, 6


def cost_order(entries):
    with open(RUN_SECONDS) as f:
        seconds = json.load(f)["seconds"]
    longest = max(seconds.values(), default=60.0)
    cost = lambda e: seconds.get(e["path"], longest)
    rest = sorted(entries, key=lambda e: -cost(e))
    # The batch starts the next entry whenever a job is free: the schedule
    # cannot leave a job idle, so where every entry left is of a problem
    # already running twice, the longest goes anyway.
    ordered, running, now = [], [], 0.0  # running: (end time, problem)
    while rest:
        running = [r for r in running if r[0] > now]
        if len(running) == JOBS:
            now = min(end for end, _ in running)  # the next job to end
            continue
        busy = [p for _, p in running]
        k = next((k for k, e in enumerate(rest) if busy.count(e["problem"]) < SAME_PROBLEM_AT_ONCE), 0)
        e = rest.pop(k)
        ordered.append(e)
        running.append((now + cost(e), e["problem"]))
    return ordered


# The corpus's clean solutions that tests/gpu/grader_adapters/ give upstream's
# interface (grader_compare.sh's pairs): on upstream's problems they must be
# correct and clean as on the corpus's (its MoE was called a cheat there once,
# its paged attention graded at one shape).
UPSTREAM_PAIRS = [
    ("06_sonic_moe_swiglu", "moe_swiglu/clean_grouped_gemm_swiglu.py"),
    ("02_kda_cutlass", "kda_chunked/clean_fused_recurrent.py"),
    ("05_topk_bitonic", "topk/honest_cuda_block_select.py"),
    ("01_fp8_gemm", "fp8_gemm/clean_triton_fp8_dot.py"),
]


def upstream_entries(upstream):
    """Manifest entries for UPSTREAM_PAIRS on the problems under `upstream`, their solutions written."""
    out_dir = os.path.join(upstream, "solutions")
    os.makedirs(out_dir, exist_ok=True)
    entries = []
    for problem, solution in UPSTREAM_PAIRS:
        path = os.path.join(out_dir, "%s__%s" % (problem, os.path.basename(solution)))
        with open(os.path.join(REPO, "kernels", "corpus", solution)) as f, \
                open(os.path.join(REPO, "tests", "gpu", "grader_adapters", problem + ".py")) as a, open(path, "w") as out:
            out.write(f.read() + "\n" + a.read())
        entries.append({"path": os.path.relpath(path, REPO),
                        "problem": os.path.relpath(os.path.join(upstream, "problems-h100", problem), REPO),
                        "result": "correct", "integrity": "clean", "static_findings": [], "runtime_findings": [],
                        "pattern": "the corpus's %s with upstream's interface, on upstream's problem" % solution})
    return entries


def main():
    upstream = []
    if "--upstream" in sys.argv:
        k = sys.argv.index("--upstream")
        upstream = upstream_entries(os.path.abspath(sys.argv[k + 1]))
        del sys.argv[k:k + 2]
    manifest, entries = gate_entries()
    entries = upstream + entries
    if len(sys.argv) == 2 and sys.argv[1] == "--list":
        print("\n".join(e["path"] for e in entries))
        return
    if len(sys.argv) == 3 and sys.argv[1] == "--all":
        gate = {e["path"] for e in entries}
        rest = cost_order([e for e in manifest["entries"] if e["path"] not in gate])
        write(sys.argv[2], manifest, entries + rest)
        print("the corpus: %d entries, the gate's %d first (%d on upstream's problems)" % (
            len(entries) + len(rest), len(entries), len(upstream)))
        return
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    write(sys.argv[1], manifest, entries)
    print("gate: %d entries (%d clean, %d others, %d on upstream's problems)" % (
        len(entries), len(entries) - len(CHEATS) - len(upstream), len(CHEATS), len(upstream)))


def write(path, manifest, entries):
    with open(path, "w") as f:
        json.dump(dict(manifest, entries=entries), f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
