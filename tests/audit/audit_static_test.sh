#!/usr/bin/env bash
# kaudit audit end to end without running anything (--device none): the
# evidence folders, the summary, the verdicts that static evidence alone may
# decide (monkeypatching is a cheat; a banned call is not, without a run), the
# reports, resuming, and kaudit verdict on the saved evidence.
set -uo pipefail
kaudit="$1"
root="$2"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cd "$root"
fail() { echo "FAIL: $*"; exit 1; }

"$kaudit" audit --device none --problem kernels/problems/topk -o "$out" \
  kernels/corpus/topk/clean_two_stage_select.py kernels/corpus/topk/cheat_patch_allclose.py \
  kernels/corpus/topk/cheat_sort_method_alias.py > "$out/log1" 2>&1
rc=$?
[[ $rc == 1 ]] || fail "exit status $rc, want 1 (a cheat was found)"
for key in topk__clean_two_stage_select topk__cheat_patch_allclose topk__cheat_sort_method_alias; do
  for f in submission.json analysis.json verdict.json; do
    [[ -s "$out/$key/$f" ]] || fail "$key/$f missing"
  done
  [[ ! -e "$out/$key/run.json" ]] || fail "$key was run with --device none"
done
integrity() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['integrity'])" "$out/$1/verdict.json"; }
[[ $(integrity topk__cheat_patch_allclose) == cheat ]] || fail "monkeypatching alone must decide: cheat"
[[ $(integrity topk__cheat_sort_method_alias) == not-run ]] || fail "a banned call needs a run to decide"
[[ $(integrity topk__clean_two_stage_select) == not-run ]] || fail "never clean without a run"
grep -q '"cheat": 1' "$out/summary.json" || fail "summary counts"
[[ -s "$out/report.html" && -s "$out/report.md" ]] || fail "reports missing"

# Resume: a second run keeps the verdicts and does not rewrite the analysis.
before=$(stat -c %Y "$out/topk__clean_two_stage_select/analysis.json")
"$kaudit" audit --device none --problem kernels/problems/topk -o "$out" \
  kernels/corpus/topk/clean_two_stage_select.py kernels/corpus/topk/cheat_patch_allclose.py \
  kernels/corpus/topk/cheat_sort_method_alias.py > "$out/log2" 2>&1
[[ $(stat -c %Y "$out/topk__clean_two_stage_select/analysis.json") == "$before" ]] || fail "resume rewrote the analysis"

# kaudit verdict recomputes from saved evidence, one folder or the batch.
one=$("$kaudit" verdict "$out/topk__cheat_patch_allclose")
[[ $? == 1 && "$one" == *"integrity: cheat"* ]] || fail "kaudit verdict on one folder"
"$kaudit" verdict "$out" > "$out/log3"; [[ $? == 1 ]] || fail "kaudit verdict on the batch: exit status"
grep -q "topk__cheat_patch_allclose: not-run, cheat" "$out/log3" || fail "kaudit verdict on the batch: output"

# Bad input: a missing submission is a usage error.
"$kaudit" audit --device none -o "$out" /nonexistent/solution.py > /dev/null 2>&1
[[ $? == 2 ]] || fail "a missing submission must exit 2"
# kaudit analyze colours its text on a terminal, unless NO_COLOR is set (a
# pseudo-terminal from util-linux's script, where there is one).
if command -v script > /dev/null; then
  colored() { script -qec "$kaudit analyze kernels/corpus/topk/cheat_b64_exec.py --problem kernels/problems/topk" /dev/null | grep -c $'\033'; }
  [[ $(colored) -gt 0 ]] || fail "kaudit analyze on a terminal has no colour"
  [[ $(NO_COLOR=1 colored) == 0 ]] || fail "kaudit analyze coloured its text with NO_COLOR set"
fi
echo "audit static test passed"
