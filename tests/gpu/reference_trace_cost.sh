#!/usr/bin/env bash
# What tracing the reference's process costs (issue 26 item 4 against issue
# 27's budget): `kaudit run --trace` of each PROBLEM SOLUTION pair four
# times, with the reference traced and with --untraced-reference in the order
# A B B A, after one import of torch that warms the page cache (on a fresh
# machine the first run pays for reading torch from disk: session 22's
# one-order A/B measured that as much as the tracer), on the kaudit that
# tests/gpu/run_runner_gpu.sh built. Prints
# each run's seconds and the phases that differ (the reference's import and
# inputs, its expected outputs, the submission's start, the trace step), the
# reference's import, the submission's start and the reference's inputs by
# part (where the tracer's cost lands inside them), and
# writes $OUT/reference_trace_cost/*.json.
#
#   KAUDIT_COST_PAIRS="kernels/problems/fp8_gemm kernels/corpus/fp8_gemm/clean_triton_fp8_dot.py" \
#     bash tests/gpu/reference_trace_cost.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/reference-trace-cost-out}
KAUDIT=${KAUDIT:-$PWD/build-gpu/kaudit}
out=$OUT/reference_trace_cost
mkdir -p "$out"
[[ -x $KAUDIT ]] || { echo "reference_trace_cost: no $KAUDIT: run tests/gpu/run_runner_gpu.sh first"; exit 2; }
[[ -z ${KAUDIT_BWRAP:-} && -x .device-deps/bin/bwrap ]] && export KAUDIT_BWRAP=$PWD/.device-deps/bin/bwrap
pairs_default="kernels/problems/fp8_gemm kernels/corpus/fp8_gemm/clean_triton_fp8_dot.py"
mapfile -t pairs <<<"${KAUDIT_COST_PAIRS:-$pairs_default}"
python3 -c "import torch, triton; torch.zeros(1, device='cuda')" >/dev/null 2>&1
n=0
for pair in "${pairs[@]}"; do
  read -r problem solution <<<"$pair"
  [[ -n $problem && -n $solution ]] || continue
  n=$((n + 1))
  k=0
  for how in traced untraced untraced traced; do
    k=$((k + 1))
    flag=()
    [[ $how == untraced ]] && flag=(--untraced-reference)
    doc=$out/$n-$k-$how.json
    "$KAUDIT" run --device cuda --trace "${flag[@]}" --problem "$problem" --solution "$solution" -o "$doc" \
      >"$out/$n-$k-$how.log" 2>&1
    python3 - "$doc" "$how" "$solution" <<'PY'
import json, sys
doc, how, solution = sys.argv[1:]
try:
    r = json.load(open(doc))
except (OSError, ValueError) as e:
    print("%s %s: no result (%s)" % (solution, how, e))
    sys.exit(0)
sums, parts = {}, {}
# Where inside a phase: the reference's import and the submission's start
# (torch, dynamo, bind, device: the tracer's start lands there), its inputs
# (draw, probes, files, ...).
by_part = ("reference import", "submission start", "reference inputs")
for p in r.get("phases", []):
    key = p["process"] + " " + p["phase"]
    sums[key] = sums.get(key, 0) + p["seconds"]
    for part, s in (p.get("parts") or {}).items():
        if key in by_part and isinstance(s, (int, float)):
            parts.setdefault(key, {})[part] = parts.get(key, {}).get(part, 0) + s
keep = ["reference import", "reference inputs", "reference expected outputs", "submission start", "runner trace"]
glue = (r.get("trace") or {}).get("reference_glue", {}).get("status")
print("%s %s: %.1f s, %s; %s; reference_glue %s; %s" % (
    solution, how, r.get("seconds", 0), r.get("result"),
    ", ".join("%s %.2f" % (k, sums.get(k, 0)) for k in keep), glue,
    "; ".join("%s by part: %s" % (k, ", ".join("%s %.2f" % kv for kv in sorted(parts.get(k, {}).items())))
              for k in by_part)))
PY
  done
done
