#!/usr/bin/env bash
# pyflakes over the harness: undefined names,
# unused imports, redefinitions. Skips (77) where pyflakes3 is not installed
# (scripts/setup.sh installs it).
set -uo pipefail
root=${1:-.}
command -v pyflakes3 >/dev/null || { echo "SKIP: pyflakes3 is not installed (apt-get install pyflakes3)"; exit 77; }
files=("$root"/runner/harness/*.py)
if pyflakes3 "${files[@]}"; then
  echo "OK: pyflakes finds nothing in ${#files[@]} harness file(s)"
else
  echo "FAIL: pyflakes (above)"
  exit 1
fi
