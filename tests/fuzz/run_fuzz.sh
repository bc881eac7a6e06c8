#!/usr/bin/env bash
# Builds the libFuzzer targets (KAUDIT_FUZZ=ON, clang-19, ASan + UBSan) in
# build-fuzz and runs each for SECONDS (default 5) over its seeds in
# tests/fuzz/corpus/<target>/:
#   tests/fuzz/run_fuzz.sh [SECONDS] [TARGET...]
# Targets: python_front, cxx_input, tensor_file, trace_journal (default all).
# New inputs stay in build-fuzz/tests/fuzz/work/corpus/; a crash, timeout or
# sanitizer report is written to build-fuzz/tests/fuzz/work/artifacts/<target>/
# and makes the script fail. Ends with a line per target: runs, exec/s, cov.
# KAUDIT_FUZZ_BUILD (default build-fuzz) names the build folder;
# KAUDIT_FUZZ_SEED fixes the random seed (default: a new one each run).
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-5}
shift || true
targets=("$@")
((${#targets[@]})) || targets=(python_front cxx_input tensor_file trace_journal)
build=${KAUDIT_FUZZ_BUILD:-build-fuzz}
cc=${KAUDIT_FUZZ_CC:-clang-19}
cxx=${KAUDIT_FUZZ_CXX:-clang++-19}
for tool in "$cc" "$cxx"; do
  command -v "$tool" >/dev/null || { echo "run_fuzz: $tool not found (scripts/setup.sh installs clang-19)"; exit 1; }
done

if [[ ! -f $build/build.ninja ]]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER="$cc" \
    -DCMAKE_CXX_COMPILER="$cxx" -DKAUDIT_FUZZ=ON -DKAUDIT_BUILD_TRACER=OFF -DKAUDIT_BUILD_BENCHMARKS=OFF >/dev/null
fi
cmake --build "$build" -j "$(nproc)" --target "${targets[@]/#/fuzz_}"

work=$build/tests/fuzz/work
summary=()
failed=0
for t in "${targets[@]}"; do
  echo "run_fuzz: $t for ${seconds}s"
  log=$work/$t.log
  mkdir -p "$work"
  if tests/fuzz/fuzz_one.sh "$build/tests/fuzz/fuzz_$t" "$t" "$seconds" "$work" >"$log" 2>&1; then
    status=ok
  else
    status=FAILED
    failed=1
    tail -n 60 "$log"
  fi
  # libFuzzer's last status line: "#RUNS DONE cov: C ft: F corp: N/S exec/s: E ..."
  last=$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)
  runs=$(grep -oE 'stat::number_of_executed_units: [0-9]+' "$log" | grep -oE '[0-9]+$' || true)
  rate=$(grep -oE 'exec/s: [0-9]+' <<<"$last" | grep -oE '[0-9]+$' || true)
  cov=$(grep -oE 'cov: [0-9]+' <<<"$last" | grep -oE '[0-9]+$' || true)
  ft=$(grep -oE 'ft: [0-9]+' <<<"$last" | grep -oE '[0-9]+$' || true)
  summary+=("$(printf '%-14s %-6s runs %-9s exec/s %-7s cov %-7s ft %-7s log %s' "$t" "$status" "${runs:-?}" \
    "${rate:-?}" "${cov:-?}" "${ft:-?}" "$log")")
done
printf '%s\n' "${summary[@]}"
exit "$failed"
