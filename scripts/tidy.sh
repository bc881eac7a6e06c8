#!/usr/bin/env bash
# clang-tidy (the checks in .clang-tidy) over every product source of a
# configured build: exits 1 on any warning, 77 when clang-tidy-19 is missing.
#   scripts/tidy.sh [BUILD_DIR]      (default: build; needs its compile_commands.json)
# About 8 minutes on the 2-core machine (112 sources); the test command runs
# it as the CTest test clang_tidy (tests/style/CMakeLists.txt).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
command -v run-clang-tidy-19 >/dev/null || { echo "SKIP: clang-tidy-19 is not installed (Debian: clang-tidy-19)"; exit 77; }
[[ -f $build/compile_commands.json ]] || { echo "no $build/compile_commands.json: configure the build first"; exit 2; }
mapfile -t files < <(python3 - "$build/compile_commands.json" "$root" <<'PY'
import json, sys
root = sys.argv[2] + "/"
product = ("analyzer", "app", "audit", "common", "evidence", "python", "report", "rules", "runner", "tracer")
for e in json.load(open(sys.argv[1])):
    f = e["file"]
    if f.startswith(root) and f[len(root):].split("/")[0] in product:
        print(f)
PY
)
((${#files[@]})) || { echo "no product sources in $build/compile_commands.json"; exit 2; }
# The build's flags are g++'s: clang does not know some (-Wno-restrict), and
# clang 19 reads libstdc++ 12's std::stable_sort as using a deprecated
# function. Those are the compiler's diagnostics, not the checks kept here.
run-clang-tidy-19 -p "$build" -quiet -j "$(nproc)" -extra-arg=-Wno-unknown-warning-option \
  -extra-arg=-Wno-deprecated-declarations "${files[@]}" >"$build/tidy.log" 2>&1
status=$?
grep -E "(warning|error):" "$build/tidy.log" | grep -F "$root/" | sort -u
echo "clang-tidy: ${#files[@]} sources, exit $status (log: $build/tidy.log)"
exit $((status != 0))
