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
# Writes $OUT/hang/{batch/,ps.txt,kaudit.log}. KAUDIT_HANG_S (default 240)
# bounds the run.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/gpu-out}
out=$OUT/hang
mkdir -p "$out"
KAUDIT=${KAUDIT:-./build-gpu/kaudit}
[[ -x $KAUDIT ]] || { echo "hang: no $KAUDIT: run tests/gpu/run_runner_gpu.sh first"; exit 2; }
limit=${KAUDIT_HANG_S:-240}
# kaudit audit, not run: its heartbeat names the first call's build
# processes while it runs, and the run may never end within the limit.
timeout "$limit" "$KAUDIT" audit --problem kernels/problems/topk kernels/corpus/topk/error_bisect_hang.py \
  -o "$out/batch" --force --heartbeat 10 >"$out/kaudit.log" 2>&1 &
run=$!
start=$(date +%s)
while kill -0 "$run" 2>/dev/null; do
  { echo "--- $(( $(date +%s) - start )) s"; ps -eLo pid,tid,ppid,stat,etimes,time,wchan:20,comm --sort=pid; } >>"$out/ps.txt" 2>&1
  sleep 5
done
wait "$run"
rc=$?
echo "hang: kaudit exit $rc after $(( $(date +%s) - start )) s"
grep -E "building|hang" "$out/kaudit.log" | tail -5 | cut -c1-300
python3 - "$out/batch" <<'PY'
import glob, json, sys
try:
    r = json.load(open(glob.glob(sys.argv[1] + "/**/run.json", recursive=True)[0]))
except (OSError, ValueError, IndexError) as e:
    sys.exit(f"hang: no run.json ({e})")
print("hang: result", r.get("result"), "-", (r.get("error") or {}).get("reason", "")[:300])
for f in r.get("first_calls", []):
    print("hang: first call", f.get("phase"), f.get("shape"), round(f.get("seconds", 0), 1), "s, build:", f.get("build_processes"))
PY
