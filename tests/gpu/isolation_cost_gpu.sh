#!/usr/bin/env bash
# What the sandbox costs per run on the GPU machine: the same Triton
# submission run with `kaudit run` in the sandbox and with
# --unsafe-no-sandbox, three times each, alternating; prints the seconds of
# each run and the medians. Needs build-gpu/kaudit (tests/gpu/run_runner_gpu.sh builds it).
set -uo pipefail
cd "$(dirname "$0")/../.."
K=build-gpu/kaudit
OUT=${OUT:-$PWD/isolation-out}
mkdir -p "$OUT"
args=(run --problem tests/runner/problems/silu_mul --solution tests/gpu/runner/triton_clean.py
      --device cuda --modes bench,fresh --trials 20 -q)
for k in 1 2 3; do
  for mode in sandbox unsafe; do
    extra=(); [[ $mode == unsafe ]] && extra=(--unsafe-no-sandbox)
    "$K" "${args[@]}" "${extra[@]}" -o "$OUT/iso_${mode}_$k.json"
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[2], d['result'], round(d['seconds'],2), d['isolation']['sandboxed'])" \
      "$OUT/iso_${mode}_$k.json" "$mode"
  done
done | tee "$OUT/isolation_cost.txt"
python3 - "$OUT/isolation_cost.txt" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
for mode in ("sandbox", "unsafe"):
    s = [float(r[2]) for r in rows if r[0] == mode]
    print(mode, "median", round(statistics.median(s), 2), "s over", len(s), "runs")
PY
