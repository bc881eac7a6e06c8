#!/usr/bin/env bash
# Runs scripts/add_check.sh against a scratch copy of the files it touches and
# checks what it made; the real tree is never written.
set -euo pipefail
src="$1"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/analyzer/checks" "$scratch/tests/analyzer/checks"
cp "$src/analyzer/checks/check_list.def" "$scratch/analyzer/checks/"
mkdir -p "$scratch/rules/packs"
cp "$src/rules/packs/default.json" "$scratch/rules/packs/"
pack_before="$(md5sum "$src/rules/packs/default.json")"
before="$(md5sum "$src/analyzer/checks/check_list.def")"

"$src/scripts/add_check.sh" --root "$scratch" scaffold-probe suspicious python,cxx > "$scratch/out.txt"

fail() { echo "add_check_scaffold: $*" >&2; cat "$scratch/out.txt" >&2; exit 1; }
[[ -f "$scratch/analyzer/checks/scaffold_probe.cpp" ]] || fail "no check source"
grep -q 'make_scaffold_probe_check' "$scratch/analyzer/checks/scaffold_probe.cpp" || fail "no factory"
grep -q '"scaffold-probe"' "$scratch/analyzer/checks/scaffold_probe.cpp" || fail "no id in CheckInfo"
grep -q 'Category::suspicious' "$scratch/analyzer/checks/scaffold_probe.cpp" || fail "no category"
grep -q 'kPython | kCxx' "$scratch/analyzer/checks/scaffold_probe.cpp" || fail "no languages"
[[ "$(tail -n 1 "$scratch/analyzer/checks/check_list.def")" == "KAUDIT_CHECK(scaffold_probe)" ]] || fail "no registration line"
[[ "$(grep -c '^KAUDIT_CHECK(' "$scratch/analyzer/checks/check_list.def")" -eq \
   "$(( $(grep -c '^KAUDIT_CHECK(' "$src/analyzer/checks/check_list.def") + 1 ))" ]] || fail "list not one line longer"
grep -q '# expect: scaffold-probe' "$scratch/tests/analyzer/checks/scaffold-probe/positive.py" || fail "no positive fixture"
[[ -f "$scratch/tests/analyzer/checks/scaffold-probe/negative.py" ]] || fail "no negative fixture"
! grep -q 'expect:' "$scratch/tests/analyzer/checks/scaffold-probe/negative.py" || fail "negative fixture expects"
grep -q 'docs/findings.md' "$scratch/out.txt" || fail "no docs step printed"
grep -q 'needs no verdict policy entry' "$scratch/out.txt" || fail "no policy note printed"
cmp -s "$scratch/rules/packs/default.json" "$src/rules/packs/default.json" || fail "a suspicious check changed the policy"
# A check that could decide gets a verdict policy entry: a lead, twice over.
"$src/scripts/add_check.sh" --root "$scratch" scaffold-lead cheat python > "$scratch/out2.txt" || fail "cheat check not made"
"$src/scripts/add_check.sh" --root "$scratch" scaffold-lead-two benchmark_aware cxx > /dev/null || fail "second not made"
leads="$(python3 -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))["verdict"]["static_leads"]))' \
         "$scratch/rules/packs/default.json")" || fail "default.json is no longer valid JSON"
[[ " $leads " == *" scaffold-lead "* && " $leads " == *" scaffold-lead-two "* ]] || fail "static_leads is '$leads'"
grep -q 'verdict.static_leads' "$scratch/out2.txt" || fail "no policy step printed"
# A second run refuses to overwrite.
if "$src/scripts/add_check.sh" --root "$scratch" scaffold-probe suspicious python > /dev/null 2>&1; then
  fail "a second run did not refuse"
fi
# A bad id is refused.
if "$src/scripts/add_check.sh" --root "$scratch" Bad_Id cheat python > /dev/null 2>&1; then fail "bad id accepted"; fi
[[ "$(md5sum "$src/analyzer/checks/check_list.def")" == "$before" ]] || fail "the real check list changed"
[[ "$(md5sum "$src/rules/packs/default.json")" == "$pack_before" ]] || fail "the real rule pack changed"
[[ ! -e "$src/analyzer/checks/scaffold_probe.cpp" && ! -e "$src/tests/analyzer/checks/scaffold-probe" ]] || fail "wrote into the real tree"
echo "add_check_scaffold: ok"
