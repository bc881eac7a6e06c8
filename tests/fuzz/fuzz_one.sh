#!/usr/bin/env bash
# Runs one libFuzzer target for SECONDS over its committed seeds:
#   tests/fuzz/fuzz_one.sh BINARY NAME SECONDS WORKDIR
# New inputs go to WORKDIR/corpus/NAME (never into the committed corpus), a
# crash, leak, timeout or sanitizer report to WORKDIR/artifacts/NAME/ and
# stops the run with a non-zero status. The last lines of the log carry
# libFuzzer's figures (runs, exec/s, cov, ft).
set -euo pipefail
bin=$1 name=$2 seconds=$3 work=$4
here=$(cd "$(dirname "$0")" && pwd)
seeds=$here/corpus/$name
mkdir -p "$work/corpus/$name" "$work/artifacts/$name"
dict=()
[[ -f $here/$name.dict ]] && dict=(-dict="$here/$name.dict")
# detect_leaks: the analyzer keeps process-wide caches (the Clang front's
# prelude) on purpose; leaks are looked for in the short-lived parsers only.
leaks=1
[[ $name == python_front || $name == cxx_input ]] && leaks=0
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=$leaks:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# KAUDIT_FUZZ_SEED fixes libFuzzer's random seed (scripts/test.sh, so CI:
# the same inputs every run); unset, each run explores anew.
seed=()
[[ -n ${KAUDIT_FUZZ_SEED:-} ]] && seed=(-seed="$KAUDIT_FUZZ_SEED")
exec "$bin" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=4096 -print_final_stats=1 "${seed[@]}" \
  "${dict[@]}" -artifact_prefix="$work/artifacts/$name/" "$work/corpus/$name" "$seeds"
