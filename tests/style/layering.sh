#!/usr/bin/env bash
# Dependencies point one way (CONTRIBUTING.md, "Layout"):
#   app, python -> audit -> analyzer / run / report -> evidence -> rules
# with the tracer beside them (read by run through its trace model). Fails
# when a product source includes a header of a folder it may not use.
#   tests/style/layering.sh REPO_ROOT
set -uo pipefail
root="$1"
cd "$root" || exit 2
# folder: the folders it may include from ("kaudit/" is the generated version header).
declare -A allowed=(
  [common]="common"
  [rules]="rules common"
  [evidence]="evidence rules common"
  [tracer]="tracer"
  [analyzer]="analyzer evidence rules common kaudit"
  [run]="run evidence rules tracer common"
  [report]="report evidence rules common"
  [audit]="audit analyzer run report evidence rules tracer common kaudit"
  [app]="app audit analyzer run report evidence rules tracer common kaudit"
  [python]="python audit analyzer run report evidence rules tracer common kaudit"
)
fail=0 checked=0
for folder in "${!allowed[@]}"; do
  [[ -d $folder ]] || continue
  while IFS=: read -r file line text; do
    target=$(sed -E 's/.*#include "([a-z_]+)\/.*/\1/' <<<"$text")
    checked=$((checked + 1))
    if [[ " ${allowed[$folder]} " != *" $target "* ]]; then
      echo "$file:$line: $folder/ may not include $target/ (${text#*#include })"
      fail=1
    fi
  done < <(grep -rnE '^#include "[a-z_]+/' "$folder" --include='*.h' --include='*.cpp' --include='*.cu')
done
if ((fail)); then echo "FAIL: a dependency points the wrong way"; exit 1; fi
echo "OK: $checked includes, every dependency points one way"
