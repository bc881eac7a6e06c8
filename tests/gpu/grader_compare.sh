#!/usr/bin/env bash
# Issue 17: a full kaudit audit of one submission (every probe, three timing
# modes, the trace, in the sandbox) against KernelBench-Hard's own grader on
# the same file and GPU: check.py, then benchmark.py, run from a copy of the
# upstream tree (src/ beside problems/NAME/, as upstream lays it out), then
#
#   kaudit audit --problem PROBLEM_FOLDER SOLUTION -o DIR
#
# on that same upstream problem folder: four problems (top-k, fp8 GEMM, MoE
# up-projection, KDA), with the bundled corpus's clean submissions for them,
# top-k's with a lazy build and without one.
#
#   UPSTREAM=.upstream/kernelbench-hard bash tests/gpu/grader_compare.sh
#
# UPSTREAM is a copy of ../shared/upstream/kernelbench-hard carried to the
# GPU machine (never part of the project: .upstream/ is ignored). Uses the
# kaudit that tests/gpu/run_runner_gpu.sh built (build-gpu: no analyzer, so
# the audit's static analysis is absent and only the run is compared).
# Writes $OUT/grader_compare/summary.json and ratios.txt (seconds per step and problem, the
# grader's last line, kaudit's verdict and where its time went) and the logs.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
OUT=${OUT:-$PWD/grader-compare-out}
UPSTREAM=${UPSTREAM:-.upstream/kernelbench-hard}
KAUDIT=${KAUDIT:-$root/build-gpu/kaudit}
out=$OUT/grader_compare
mkdir -p "$out"
[[ -d $UPSTREAM/src && -d $UPSTREAM/problems-h100 ]] || { echo "grader_compare: no upstream tree at $UPSTREAM (SKIPPED)"; exit 77; }
[[ -x $KAUDIT ]] || { echo "grader_compare: no $KAUDIT: run tests/gpu/run_runner_gpu.sh first"; exit 2; }
UPSTREAM=$(cd "$UPSTREAM" && pwd)
# Solutions with a lazy build (load_inline inside the first call) and
# without one (Triton's JIT only). KAUDIT_GRADER_PAIRS ("PROBLEM SOLUTION"
# per line) picks others.
# The corpus's problems differ from upstream's in their constructor's
# arguments and where the weights live: tests/gpu/grader_adapters/PROBLEM.py,
# appended to the solution, gives it upstream's interface (the corpus's
# w4a16 and paged attention pack their weights and caches differently, so
# they have none); tests/gpu/grader_adapters_test.py checks each on the CPU.
pairs_default="05_topk_bitonic kernels/corpus/topk/honest_cuda_block_select.py
05_topk_bitonic kernels/corpus/topk/clean_two_stage_select.py
01_fp8_gemm kernels/corpus/fp8_gemm/clean_triton_fp8_dot.py
06_sonic_moe_swiglu kernels/corpus/moe_swiglu/clean_grouped_gemm_swiglu.py
02_kda_cutlass kernels/corpus/kda_chunked/clean_fused_recurrent.py"
mapfile -t pairs <<<"${KAUDIT_GRADER_PAIRS:-$pairs_default}"
now() { date +%s.%N; }
# step NAME LOG COMMAND...: runs it, prints "NAME SECONDS EXIT".
step() {
  local name=$1 log=$2
  shift 2
  local t0 rc
  t0=$(now)
  "$@" >"$log" 2>&1
  rc=$?
  echo "$name $(python3 -c "print(round($(now) - $t0, 1))") $rc"
}
results=()
# The summary so far, after every pair: a call's time limit may stop the rest.
summarize() {
python3 - "$out" "${results[@]}" >"$out/ratios.txt" <<'PY'
import glob, json, os, sys
out, rows = sys.argv[1], sys.argv[2:]
summary = []
def last_line(path):
    try:
        lines = [l for l in open(path, errors="replace").read().splitlines() if l.strip()]
        return lines[-1][:300] if lines else ""
    except OSError:
        return ""
for row in rows:
    problem, solution, folder, check, bench, audit = row.split("|")
    entry = {"problem": problem, "solution": solution}
    for text in (check, bench, audit):
        name, seconds, rc = text.split()
        entry[name] = {"seconds": float(seconds), "exit": int(rc),
                       "last_line": last_line(os.path.join(out, folder, name + ".log"))}
    entry["lazy_build"] = "load_inline" in open(solution, errors="replace").read()
    entry["grader_seconds"] = entry["check"]["seconds"] + entry["benchmark"]["seconds"]
    runs = glob.glob(os.path.join(out, folder, "batch", "**", "run.json"), recursive=True)
    if runs:
        run = json.load(open(runs[0]))
        entry["kaudit"]["result"] = run.get("result")
        entry["kaudit"]["run_seconds"] = run.get("seconds")
        phases = {}
        for p in run.get("phases", []):
            key = p.get("process", "") + " " + p.get("phase", "")
            phases[key] = round(phases.get(key, 0.0) + p.get("seconds", 0.0), 1)
        entry["kaudit"]["phases"] = phases
    verdicts = glob.glob(os.path.join(out, folder, "batch", "**", "verdict.json"), recursive=True)
    if verdicts:
        v = json.load(open(verdicts[0]))
        entry["kaudit"]["integrity"] = v.get("integrity")
    entry["kaudit_over_grader"] = round(entry["kaudit"]["seconds"] / entry["grader_seconds"], 2) \
        if entry["grader_seconds"] > 0 else None
    for path in sorted(glob.glob(os.path.join(out, folder, "run-*.json"))):
        try:
            run = json.load(open(path))
        except (OSError, ValueError):
            continue
        steps = [p for p in run.get("phases", []) if p.get("process") == "submission" and p.get("phase") == "start"]
        entry.setdefault("runner_alone", {})[os.path.basename(path)[4:-5]] = {
            "run_seconds": run.get("seconds"), "result": run.get("result"),
            "submission_start": steps[0].get("seconds") if steps else None,
            "helper": any(p.get("process") == "reference helper" for p in run.get("phases", []))}
    summary.append(entry)
json.dump({"problems": summary}, open(os.path.join(out, "summary.json"), "w"), indent=1)
for e in summary:
    print("%s %s (%s): grader %.1f s (check %s, benchmark %s), kaudit %.1f s (%s), ratio %s" % (
        e["problem"], os.path.basename(e["solution"]), "lazy build" if e["lazy_build"] else "no build", e["grader_seconds"], e["check"]["exit"], e["benchmark"]["exit"], e["kaudit"]["seconds"],
        e["kaudit"].get("result"), e["kaudit_over_grader"]))
    for start, r in sorted(e.get("runner_alone", {}).items()):
        print("  kaudit run, helper %s: run %s s, submission start %s s, helper ran %s, %s" % (
            start, r["run_seconds"], r["submission_start"], r["helper"], r["result"]))
PY
}
for pair in "${pairs[@]}"; do
  read -r problem solution <<<"$pair"
  tree=$(mktemp -d "${TMPDIR:-/tmp}/grader-compare.XXXXXX")
  cp -r "$UPSTREAM/src" "$tree/src"
  mkdir -p "$tree/problems"
  cp -r "$UPSTREAM/problems-h100/$problem" "$tree/problems/$problem"
  cat "$solution" "tests/gpu/grader_adapters/$problem.py" >"$tree/problems/$problem/solution.py"
  dir=$problem/$(basename "$solution" .py)
  mkdir -p "$out/$dir"
  # The grader's compile caches start empty, as kaudit's do (each run has its
  # own): a cache left warm by an earlier run would time the grader without
  # the Triton compiles and the build that kaudit pays. check.py and
  # benchmark.py share theirs, as two steps of one grading do.
  cold=(env TRITON_CACHE_DIR="$tree/cache/triton" TORCH_EXTENSIONS_DIR="$tree/cache/torch_extensions")
  check=$(cd "$tree/problems/$problem" && step check "$out/$dir/check.log" "${cold[@]}" python3 check.py)
  bench=$(cd "$tree/problems/$problem" && step benchmark "$out/$dir/benchmark.log" "${cold[@]}" python3 benchmark.py)
  audit=$(step kaudit "$out/$dir/kaudit.log" "$KAUDIT" audit --problem "$tree/problems/$problem" \
    "$tree/problems/$problem/solution.py" -o "$out/$dir/batch" --force -q)
  echo "$problem: $check; $bench; $audit"
  # KAUDIT_GRADER_HELPER_STARTS (e.g. "after-inputs with-reference"): the
  # runner alone again per start of the reference's helper, one after the
  # other on the same files, for a comparison on one machine (run-START.json).
  for start in ${KAUDIT_GRADER_HELPER_STARTS:-}; do
    echo "$problem: $(step "run-$start" "$out/$dir/run-$start.log" "$KAUDIT" run --problem "$tree/problems/$problem" \
      --solution "$tree/problems/$problem/solution.py" --trace --reference-helper "$start" -q -o "$out/$dir/run-$start.json")"
  done
  results+=("$problem|$solution|$dir|$check|$bench|$audit")
  rm -rf "$tree"
  summarize
done
cat "$out/ratios.txt"
