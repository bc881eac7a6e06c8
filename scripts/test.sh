#!/usr/bin/env bash
# Sets up and builds kaudit (scripts/setup.sh), then runs every test. Tests
# labelled `gpu` skip themselves, visibly, where there is no GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "test: no GPU here: tests labelled gpu will report themselves as skipped"
fi
cd build
ctest --output-on-failure -j "$(nproc)" --timeout 600
