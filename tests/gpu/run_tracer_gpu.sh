#!/usr/bin/env bash
# Every GPU check of the tracer in one go, for the GPU machine (H200, CUDA
# 13.0, PyTorch 2.11, Triton 3.6): builds kaudit, libkaudit_tracer.so and the
# tracer tests; runs the GPU tests (label gpu); checks the traces they
# recorded with the CPU model test; measures the overhead side by side (no
# tracer, kaudit, torch.profiler); and packs the traces that become
# tests/tracer/fixtures/. Logs and results go to $OUT (default ./gpu-out).
#
#   bash tests/gpu/run_tracer_gpu.sh
#
# KAUDIT_OVERHEAD_ROUNDS (default "1 2") and KAUDIT_OVERHEAD_MODES (default
# all seven) choose the overhead processes; KAUDIT_GPU_QUICK=1 skips them,
# KAUDIT_GPU_OVERHEAD_ONLY=1 runs only them and the CUPTI floor (cupti_floor.cu);
# KAUDIT_OVERHEAD_CPUS pins them to those cores (taskset).
# CLI11 is not installed there: carry its headers in .device-deps/include/CLI.
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
OUT=${OUT:-$ROOT/gpu-out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/tracer_gpu.log") 2>&1
export PYTHONUNBUFFERED=1
step() { echo; echo "=== $* ($(date +%T))"; }
failures=()

step machine
nvidia-smi -L
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__, torch.cuda.get_device_name())"
nvcc --version | tail -2

step configure
# tests/gpu/tracer_build builds the tracer alone, so that work in progress
# elsewhere in the tree cannot stop this run.
cmake -S tests/gpu/tracer_build -B build-gpu-tracer -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DKAUDIT_EXTRA_INCLUDE="$ROOT/.device-deps/include" -DCMAKE_CUDA_ARCHITECTURES=90 >"$OUT/configure.txt" 2>&1 || { tail -40 "$OUT/configure.txt"; exit 1; }

step build
ninja -C build-gpu-tracer -j 16 kaudit kaudit_tracer tracer_model_test tracer_gpu_test tracer_cuda_app cupti_floor || exit 1

# KAUDIT_GPU_OVERHEAD_ONLY=1: the overhead measurements alone (no tests, no fixtures).
if [[ ${KAUDIT_GPU_OVERHEAD_ONLY:-0} != 1 ]]; then

step "GPU tests (ctest -L gpu lists them)"
ctest --test-dir build-gpu-tracer -L gpu -N | tail -12
TRACES=/tmp/kaudit-gpu-traces
rm -rf "$TRACES"
export KAUDIT_GPU_TEST_OUT=$TRACES
timeout 420 build-gpu-tracer/tests/tracer/tracer_gpu_test --gtest_color=no || failures+=(gpu_test)
unset KAUDIT_GPU_TEST_OUT
for f in "$TRACES"/*.log; do echo "--- $(basename "$f")"; tail -5 "$f"; done

step "fixtures from this run, checked by the CPU model test"
mkdir -p /tmp/fixtures
cp "$TRACES"/trace_cuda_app.json "$TRACES"/trace_torch_app.json "$TRACES"/fault_segfault.json \
  "$TRACES"/fault_os_exit.json "$TRACES"/fault_fork.json "$TRACES"/fault_profiler.json \
  "$TRACES"/fault_spawn.json /tmp/fixtures/ 2>/dev/null
cp "$TRACES"/trace_cuda_app.journals/kaudit-trace.*.jsonl /tmp/fixtures/journal_cuda_app.jsonl 2>/dev/null
cp "$TRACES"/trace_torch_app.chrome.json /tmp/fixtures/ 2>/dev/null
cp /tmp/fixtures/* tests/tracer/fixtures/ 2>/dev/null
# The docs' example is the summary of the committed fixture, not of one just
# recorded: that check runs on CI once the new fixtures and docs are committed.
timeout 120 build-gpu-tracer/tests/tracer/tracer_model_test --gtest_color=no --gtest_filter=-Docs.* || failures+=(model_test)
tar czf "$OUT/tracer_fixtures.tgz" -C /tmp/fixtures .
ls -la /tmp/fixtures

# KAUDIT_GPU_QUICK=1: the tests and fixtures only (no example, no overhead).
if [[ ${KAUDIT_GPU_QUICK:-0} == 1 ]]; then
  step done
  ((${#failures[@]})) && { echo "FAILED: ${failures[*]}"; exit 1; }
  echo "all tracer GPU tests passed"
  exit 0
fi

step "kaudit trace on the PyTorch/Triton script (the summary for docs/tracer.md)"
timeout 120 build-gpu-tracer/kaudit trace -o /tmp/torch_app.json --chrome /tmp/torch_app.chrome.json -- \
  python3 tests/gpu/tracer_torch_app.py || failures+=(kaudit_trace_example)
fi

# KAUDIT_OVERHEAD_CPUS (for example 4-7): every measuring process on those
# cores, so that where the scheduler puts a process does not differ by mode.
pin=${KAUDIT_OVERHEAD_CPUS:+taskset -c $KAUDIT_OVERHEAD_CPUS}

step "CUPTI's own cost per launch, no tracer, no Python (tests/gpu/cupti_floor.cu)"
rm -f "$OUT/cupti_floor.jsonl"
for round in 1 2 3; do
  for variant in ${KAUDIT_FLOOR_VARIANTS:-off default pinned no-per-thread devbuf16 zeroed}; do
    timeout 60 $pin build-gpu-tracer/tests/tracer/cupti_floor $variant | tee -a "$OUT/cupti_floor.jsonl" || failures+=(floor_$variant)
  done
done

step "overhead: no tracer, kaudit (whole and in parts), torch.profiler, side by side"
rm -f /tmp/overhead.jsonl
for round in ${KAUDIT_OVERHEAD_ROUNDS:-1 2}; do
  for mode in ${KAUDIT_OVERHEAD_MODES:-none kaudit kaudit-api kaudit-activity kaudit-kernels kaudit-none profiler}; do
    echo "--- round $round, $mode"
    if [[ $mode == kaudit* ]]; then
      parts=${mode#kaudit}; parts=${parts#-}
      KAUDIT_TRACE_PARTS=${parts:-all} timeout 150 $pin build-gpu-tracer/kaudit trace -q -o /tmp/overhead_trace_${mode}_$round.json -- \
        python3 tests/gpu/tracer_overhead.py measure $mode /tmp/overhead.jsonl || failures+=(overhead_$mode)
    else
      timeout 150 $pin python3 tests/gpu/tracer_overhead.py measure $mode /tmp/overhead.jsonl || failures+=(overhead_$mode)
    fi
  done
done
cp /tmp/overhead.jsonl "$OUT/overhead.jsonl"
python3 tests/gpu/tracer_overhead.py summarize /tmp/overhead.jsonl /tmp/overhead_trace_kaudit_1.json \
  >"$OUT/overhead_summary.json" || failures+=(overhead_checks)
cat "$OUT/overhead_summary.json"

step done
if ((${#failures[@]})); then
  echo "FAILED: ${failures[*]}"
  exit 1
fi
echo "all tracer GPU checks passed"
