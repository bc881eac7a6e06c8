#!/usr/bin/env bash
# What a first call whose kernel never ends looks like from outside (issue
# 26): runs kaudit on kernels/corpus/topk/error_bisect_hang.py alone, as the
# batch does (sandbox and tracer on, the default limits), while the process
# table is written every 5 s: which processes of the run exist, their state
# and CPU time. On the GPU machines this run stayed on its 600 s set-up
# budget because something in its first call counted as a build
# (docs/performance.md, session 18); run.json's first_calls[].build_processes
# and this table say what.
#
#   bash tests/gpu/hang_gpu.sh     # after tests/gpu/run_runner_gpu.sh built build-gpu
#
# Writes $OUT/hang/{run.json,ps.txt,kaudit.log}. KAUDIT_HANG_S (default 240)
# bounds the run.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/gpu-out}
out=$OUT/hang
mkdir -p "$out"
KAUDIT=${KAUDIT:-./build-gpu/kaudit}
[[ -x $KAUDIT ]] || { echo "hang: no $KAUDIT: run tests/gpu/run_runner_gpu.sh first"; exit 2; }
limit=${KAUDIT_HANG_S:-240}
timeout "$limit" "$KAUDIT" run --problem kernels/problems/topk --solution kernels/corpus/topk/error_bisect_hang.py \
  -o "$out/run.json" >"$out/kaudit.log" 2>&1 &
run=$!
start=$(date +%s)
while kill -0 "$run" 2>/dev/null; do
  { echo "--- $(( $(date +%s) - start )) s"; ps -eo pid,ppid,stat,etimes,time,comm --sort=pid; } >>"$out/ps.txt" 2>&1
  sleep 5
done
wait "$run"
rc=$?
echo "hang: kaudit exit $rc after $(( $(date +%s) - start )) s"
python3 - "$out/run.json" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except (OSError, ValueError) as e:
    sys.exit(f"hang: no run.json ({e})")
print("hang: result", r.get("result"), "-", (r.get("error") or {}).get("reason", "")[:300])
for f in r.get("first_calls", []):
    print("hang: first call", f.get("phase"), f.get("shape"), round(f.get("seconds", 0), 1), "s, build:", f.get("build_processes"))
PY
