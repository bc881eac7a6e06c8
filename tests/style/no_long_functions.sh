#!/usr/bin/env bash
# No function in product C++ is longer than LIMIT lines (default 100), counted
# from the line of its name to its closing brace. Product C++ is every
# .cpp/.h/.cu under common/, analyzer/, tracer/, rules/ and, where they exist, runner/,
# app/, audit/, evidence/, report/ (not tests/, not kernels/).
#
#   tests/style/no_long_functions.sh SOURCE_DIR [LIMIT]
#
# Functions are found by Universal Ctags (Debian: universal-ctags), which reads
# C++ without compiling it: the whole tree takes well under a second. A
# lambda is counted on its own and within the function around it. Exits 77
# (ctest: skipped) when Universal Ctags is not installed.
set -uo pipefail
src=${1:?usage: no_long_functions.sh SOURCE_DIR [LIMIT]}
limit=${2:-100}
cd "$src" || exit 2

ctags=""
for c in ctags-universal universal-ctags ctags; do
  if command -v "$c" >/dev/null 2>&1 && "$c" --version 2>/dev/null | grep -q "Universal Ctags"; then
    ctags=$c
    break
  fi
done
if [[ -z $ctags ]]; then
  echo "SKIP: Universal Ctags is not installed (Debian: apt-get install universal-ctags)"
  exit 77
fi

dirs=()
for d in common analyzer tracer rules runner app audit evidence report; do
  [[ -d $d ]] && dirs+=("$d")
done
mapfile -t files < <(find "${dirs[@]}" -type f \( -name '*.cpp' -o -name '*.h' -o -name '*.cu' \) | sort)
if ((${#files[@]} == 0)); then
  echo "no product C++ files under ${dirs[*]}"
  exit 2
fi

# One line a function definition: FILE:START:END NAME.
tags=$(printf '%s\n' "${files[@]}" |
  "$ctags" -L - -f - -x --language-force=C++ --kinds-C++=f --_xformat='%{input}:%{line}:%{end} %N') || {
  echo "ctags failed"
  exit 2
}

report=$(awk -v limit="$limit" '
  {
    n = split($1, at, ":")
    file = at[1]; start = at[2]; end = at[n]
    if (end == "" || end < start) { print file ":" start ": " $2 ": ctags found no end"; bad++; next }
    len = end - start + 1
    name = ($2 ~ /^__anon/) ? "a lambda or local class" : $2
    if (len > limit) { print file ":" start ": " name " is " len " lines (limit " limit ")"; bad++ }
  }
  END { exit bad > 0 }' <<<"$tags")
status=$?
count=$(wc -l <<<"$tags")
if ((status != 0)); then
  echo "$report"
  echo "FAIL: $(grep -c . <<<"$report") of $count functions in ${#files[@]} files are over $limit lines: split them"
  exit 1
fi
echo "OK: $count functions in ${#files[@]} files, none over $limit lines"
