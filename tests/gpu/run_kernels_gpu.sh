#!/usr/bin/env bash
# Runs on the GPU machine (issue 5): every problem's reference on its shapes,
# every clean corpus submission against the reference on every shape, and the
# other corpus submissions for their observed results. Logs go under $OUT
# (results.json, summary.txt, jobs.log, env.txt, driver.log); the table is
# printed last. Exit status is non-zero when a reference fails or a clean
# submission is not correct.
#
#   OUT=/tmp/out tests/gpu/run_kernels_gpu.sh [--only SUBSTR[,SUBSTR]] [--budget S]
#
# KAUDIT_GPU_BUDGET (seconds, default 300) bounds the whole run; jobs not
# started by then are listed as skipped. KAUDIT_GPU_WORKERS (default 6) jobs
# share the GPU at once, so timings are indicative only.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/kaudit_gpu_out}
mkdir -p "$OUT"
{
  date -u +"%Y-%m-%dT%H:%M:%SZ"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv 2>&1
  python3 -c 'import torch, triton; print("torch", torch.__version__, "cuda", torch.version.cuda, "triton", triton.__version__, "device", torch.cuda.get_device_name(), "cc", torch.cuda.get_device_capability())' 2>&1
  echo "cpus $(nproc)"
} > "$OUT/env.txt"
cat "$OUT/env.txt"
python3 tests/gpu/check_kernels.py drive --out "$OUT" \
  --budget "${KAUDIT_GPU_BUDGET:-300}" --workers "${KAUDIT_GPU_WORKERS:-6}" "$@" 2>&1 | tee "$OUT/driver.log"
exit "${PIPESTATUS[0]}"
