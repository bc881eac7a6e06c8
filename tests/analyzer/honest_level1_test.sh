#!/usr/bin/env bash
# Honest solutions of KernelBench level-1 problems, written the way strong
# models write them (Triton autotuners, load_inline extensions with shape
# checks, caches keyed on shape and dtype, reused workspaces, streams, knobs),
# in tests/analyzer/honest_level1/NN_*.py. Each is analysed with upstream's
# problem NN (../shared/upstream/kernelbench/.../level1/NN_*.py); none may
# draw a cheat or benchmark-aware finding at medium or high confidence, except
# an id the file names on a line `# kaudit-label: lead: ID` (a pattern the
# docs rate a lead by design). Skipped (77) without ../shared.
#   tests/analyzer/honest_level1_test.sh KAUDIT SOURCE_DIR
set -uo pipefail
kaudit=$(realpath "$1")
src=$(realpath "$2")
level1=$(find "$src/../shared/upstream/kernelbench" -type d -name level1 2>/dev/null | head -1)
[[ -n $level1 ]] || { echo "SKIPPED: no KernelBench level1 folder under $src/../shared/upstream"; exit 77; }
fail=0 checked=0
for f in "$src"/tests/analyzer/honest_level1/*.py; do
  num=$(basename "$f" | sed -E 's/^([0-9]+).*/\1/')
  num=$((10#$num))
  problem=$(ls "$level1/${num}"_*.py 2>/dev/null | head -1)
  [[ -n $problem ]] || { echo "FAIL: $(basename "$f"): no level-1 problem $num"; fail=1; continue; }
  checked=$((checked + 1))
  allowed=$(sed -nE 's/^# kaudit-label: lead: ([a-z0-9-]+).*/\1/p' "$f" | tr '\n' ' ')
  leads=$("$kaudit" analyze --problem "$problem" "$f" --format json | python3 -c '
import json, sys
allowed = set(sys.argv[1].split())
for file in json.load(sys.stdin)["files"]:
    for x in file["findings"]:
        if x["category"] in ("cheat", "benchmark-aware") and x["confidence"] in ("medium", "high") \
                and x["id"] not in allowed:
            print("%s (%s, %s) at line %s: %s" % (x["id"], x["category"], x["confidence"],
                                                  x["location"]["line"], x["message"][:200]))
' "$allowed")
  if [[ -n $leads ]]; then
    echo "FAIL: $(basename "$f"): $leads"
    fail=1
  fi
done
((fail)) && exit 1
echo "OK: $checked honest solutions, no unexpected cheat or benchmark-aware lead"
