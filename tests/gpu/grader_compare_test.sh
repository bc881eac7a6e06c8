#!/usr/bin/env bash
# tests/gpu/grader_compare.sh runs end to end on any machine: on one without
# CUDA upstream's check.py and benchmark.py fail and kaudit's runs are
# not-run, but every step is timed and summary.json holds every problem with
# the three steps' figures. Skipped (77) without ../shared/upstream.
#   tests/gpu/grader_compare_test.sh KAUDIT SOURCE_DIR
set -uo pipefail
kaudit=$(realpath "$1")
src=$(realpath "$2")
upstream=$src/../shared/upstream/kernelbench-hard
[[ -d $upstream ]] || { echo "SKIPPED: no $upstream"; exit 77; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
OUT=$out UPSTREAM=$upstream KAUDIT=$kaudit bash "$src/tests/gpu/grader_compare.sh" || { echo "FAIL: the script failed"; exit 1; }
python3 - "$out/grader_compare/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
problems = s["problems"]
assert [p["problem"] for p in problems] == ["05_topk_bitonic"] * 2 + [
    "01_fp8_gemm", "06_sonic_moe_swiglu", "02_kda_cutlass"], problems
assert [p["lazy_build"] for p in problems] == [True, False, False, False, False], problems
for p in problems:
    for step in ("check", "benchmark", "kaudit"):
        assert p[step]["seconds"] >= 0 and isinstance(p[step]["exit"], int), (p["problem"], step, p[step])
    assert p["kaudit"]["exit"] == 0, p["kaudit"]
    assert p["kaudit"].get("integrity"), p["kaudit"]
    assert p["grader_seconds"] == p["check"]["seconds"] + p["benchmark"]["seconds"]
print("OK: %d problems timed: %s" % (len(problems), ", ".join(
    "%s grader %.1f s, kaudit %.1f s (%s)" % (p["problem"], p["grader_seconds"], p["kaudit"]["seconds"],
                                            p["kaudit"]["integrity"]) for p in problems)))
PY
