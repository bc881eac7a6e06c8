#!/usr/bin/env bash
# Sets up and builds kaudit (scripts/setup.sh), runs the fuzz targets briefly
# (tests/fuzz/run_fuzz.sh), then every test. Tests labelled `gpu` skip
# themselves, visibly, where there is no GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "test: no GPU here: tests labelled gpu will report themselves as skipped"
fi
# The parsers of submission-controlled bytes under libFuzzer, ASan and UBSan,
# a few seconds each over their seeds and the reproducers of past findings
# (built in build-fuzz with clang-19). The seed is fixed, so that a test run
# explores the same inputs each time and fails only for a change of its own;
# new inputs are looked for by `tests/fuzz/run_fuzz.sh 600` (random seed),
# run before a change lands (CONTRIBUTING.md).
KAUDIT_FUZZ_SEED=${KAUDIT_FUZZ_SEED:-1} ./tests/fuzz/run_fuzz.sh 5
cd build
ctest --output-on-failure -j "$(nproc)" --timeout 600
