#!/usr/bin/env bash
# The whole corpus through one command on the GPU machine (issue 6):
#
#   kaudit audit --manifest kernels/corpus/manifest.json -o gpu-batch --jobs N --trials T --expect
#
# with the kaudit that tests/gpu/run_runner_gpu.sh built (build-gpu, no
# analyzer there). The static analysis comes from a batch made beforehand on a
# machine with the analyzer and carried here:
#
#   kaudit audit --device none --manifest kernels/corpus/manifest.json -o gpu-batch
#
# The audit resumes, so a call that runs out of time is continued by the next
# one on the same (warm) machine: carry gpu-batch/ only in the first call, as
# a carried folder replaces the one there, progress and all. Copies the summary, the verdicts, the run documents and the reports to
# $OUT/corpus, with throughput.json (tests/gpu/corpus_throughput.py: submissions
# per GPU-hour, the GPUs' busy share); exit status 0 when every verdict matches the manifest.
#
# KAUDIT_CORPUS_JOBS (default 4), KAUDIT_CORPUS_TRIALS (default 20),
# KAUDIT_CORPUS_BUDGET_S (default 500): seconds before the audit is stopped;
# KAUDIT_CORPUS_MANIFEST: the same entries in another order (what runs first
# when the budget is short), default kernels/corpus/manifest.json.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/corpus-gpu-out}
mkdir -p "$OUT/corpus"
exec > >(tee -a "$OUT/corpus/audit.log") 2>&1
KAUDIT=./build-gpu/kaudit
[[ -x $KAUDIT ]] || { echo "no $KAUDIT: run tests/gpu/run_runner_gpu.sh first"; exit 2; }
[[ -d gpu-batch ]] || echo "no gpu-batch/ carried: the verdicts will have no static evidence"
# Workspaces of runs killed with the audit (the budget, the OOM killer) are
# never removed by it; left in /dev/shm they are memory the next call lacks.
rm -rf "${TMPDIR:-/tmp}"/kaudit-run-* 2>/dev/null
start=$(date +%s)
# The GPUs' utilization once a second, for the call's throughput figures.
util_pid=
if command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=timestamp,index,utilization.gpu,memory.used,memory.total --format=csv,noheader,nounits -l 1 -i 0 \
    >"$OUT/corpus/gpu_util.csv" 2>/dev/null &
  util_pid=$!
fi
timeout --signal=INT "${KAUDIT_CORPUS_BUDGET_S:-500}" "$KAUDIT" audit --manifest "${KAUDIT_CORPUS_MANIFEST:-kernels/corpus/manifest.json}" \
  -o gpu-batch --jobs "${KAUDIT_CORPUS_JOBS:-4}" --trials "${KAUDIT_CORPUS_TRIALS:-20}" --expect
rc=$?
# Stopped by the budget: the runs' children are in their own process groups.
pkill -KILL -f kaudit_harness.py 2>/dev/null
end=$(date +%s)
[[ -n $util_pid ]] && kill "$util_pid" 2>/dev/null
echo "audit exit $rc after $(( end - start )) s"
# Submissions per GPU-hour and the GPU's busy share in this call (the audit
# has no --gpus: every job shares device 0), against upstream's grader run
# one submission after another: its time from the grader-compare step when
# it ran earlier in the call, or KAUDIT_GRADER_SECONDS.
grader=()
[[ -f $OUT/grader_compare/summary.json ]] && grader=(--grader-summary "$OUT/grader_compare/summary.json")
[[ -n ${KAUDIT_GRADER_SECONDS:-} ]] && grader=(--grader-seconds "$KAUDIT_GRADER_SECONDS")
python3 tests/gpu/corpus_throughput.py gpu-batch --since "$start" --until "$end" --gpus 1 \
  ${util_pid:+--gpu-util "$OUT/corpus/gpu_util.csv"} "${grader[@]}" | tee "$OUT/corpus/throughput.json"
# Evidence small enough to bring back: everything but the traces.
tar czf "$OUT/corpus/batch.tgz" --exclude='trace.json' --exclude='trace.chrome.json' gpu-batch 2>/dev/null
cp gpu-batch/summary.json gpu-batch/report.md gpu-batch/report.html "$OUT/corpus/" 2>/dev/null
exit $rc
