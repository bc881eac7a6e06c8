#!/usr/bin/env bash
# Keeps docs/ in step with the code:
#  1. docs/findings.md is exactly `kaudit explain --all --markdown`;
#  2. the example in docs/usage.md prints what the doc shows;
#  3. every flag of every subcommand is documented in docs/;
#  4. every field `kaudit analyze --format json` writes is in docs/report-format.md.
set -uo pipefail
kaudit="$1"
root="$2"
fail=0
cd "$root"

if ! diff -u docs/findings.md <("$kaudit" explain --all --markdown); then
  echo "FAIL: docs/findings.md differs from 'kaudit explain --all --markdown' (regenerate it)"; fail=1
fi

# The block after "$ kaudit analyze docs/examples/alias_matmul.py" up to the closing fence.
want=$(awk '/^\$ kaudit analyze docs\/examples\/alias_matmul.py$/{on=1; next} on && /^```/{exit} on{print}' docs/usage.md)
got=$("$kaudit" analyze docs/examples/alias_matmul.py)
if [[ "$want" != "$got" ]]; then
  echo "FAIL: docs/usage.md example output differs:"; diff <(echo "$want") <(echo "$got"); fail=1
fi

for sub in $("$kaudit" --help | awk '/^SUBCOMMANDS:/{on=1; next} on && NF{print $1}'); do
  for flag in $("$kaudit" "$sub" --help | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
    [[ "$flag" == "--help" ]] && continue
    if ! grep -rqF -- "$flag" docs/; then echo "FAIL: kaudit $sub $flag is not documented in docs/"; fail=1; fi
  done
done

keys=$("$kaudit" analyze --format json docs/examples/alias_matmul.py |
       grep -oE '"[a-z_]+":' | tr -d '":' | sort -u)
for k in $keys; do
  if ! grep -qF -- "\`$k\`" docs/report-format.md && ! grep -qF -- ".$k\`" docs/report-format.md; then
    echo "FAIL: JSON field '$k' is not documented in docs/report-format.md"; fail=1
  fi
done

if ((fail)); then exit 1; fi
echo "docs in step with the code"
