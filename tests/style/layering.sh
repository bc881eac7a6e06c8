#!/usr/bin/env bash
# Dependencies point one way (CONTRIBUTING.md, "Layout"):
#   app, python -> audit -> analyzer / runner / report -> evidence -> rules -> common
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
  [runner]="runner evidence rules tracer common"
  [report]="report evidence rules common"
  [audit]="audit analyzer runner report evidence rules tracer common kaudit"
  [app]="app audit analyzer runner report evidence rules tracer common kaudit"
  [python]="python audit analyzer runner report evidence rules tracer common kaudit"
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
# Inside runner/ the layers are ordered: a layer includes only itself and the
# layers before it (process, plan, judge, session; CONTRIBUTING.md).
layers=(process plan judge session)
rank() { local i; for i in "${!layers[@]}"; do [[ ${layers[$i]} == "$1" ]] && { echo "$i"; return; }; done; echo 99; }
if [[ -d runner ]]; then
  for d in runner/*/; do
    d=${d%/}; d=${d#runner/}
    [[ $d == harness ]] && continue
    if [[ $(rank "$d") == 99 ]]; then echo "runner/$d/: not a layer of runner/ (${layers[*]})"; fail=1; continue; fi
    while IFS=: read -r file line text; do
      target=$(sed -E 's/.*#include "runner\/([a-z_]+)\/.*/\1/' <<<"$text")
      checked=$((checked + 1))
      if (( $(rank "$target") > $(rank "$d") )); then
        echo "$file:$line: runner/$d/ may not include runner/$target/, a layer above it (${text#*#include })"
        fail=1
      fi
    done < <(grep -rnE '^#include "runner/[a-z_]+/' "runner/$d" --include='*.h' --include='*.cpp')
  done
  loose=$(find runner -maxdepth 1 -type f \( -name '*.h' -o -name '*.cpp' \))
  [[ -z $loose ]] || { echo "runner/: sources belong in a layer: $loose"; fail=1; }
fi
if ((fail)); then echo "FAIL: a dependency points the wrong way"; exit 1; fi
echo "OK: $checked includes, every dependency points one way"
