#!/usr/bin/env bash
# Runs scripts/add_runtime_finding.sh against a scratch copy of the files it
# touches and checks what it made; the real tree is never written. With a C++
# compiler as the second argument it also checks that what it made compiles
# (syntax only, against the real headers: no build).
#   tests/runner/add_runtime_finding_scaffold_test.sh SOURCE_DIR [CXX]
set -euo pipefail
src="$1"
cxx="${2:-}"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/runner/judge/findings"
cp "$src/runner/judge/finding_catalog.cpp" "$scratch/runner/judge/"
cp "$src/runner/judge/findings/"*.cpp "$src/runner/judge/findings/finding_list.def" "$scratch/runner/judge/findings/"
list="runner/judge/findings/finding_list.def"
before="$(md5sum "$src/$list")"
entries() { grep -c '^KAUDIT_RUNTIME_FINDING(' "$1"; }

"$src/scripts/add_runtime_finding.sh" --root "$scratch" scaffold-probe suspicious > "$scratch/out.txt"

fail() { echo "add_runtime_finding_scaffold: $*" >&2; cat "$scratch/out.txt" >&2; exit 1; }
made="$scratch/runner/judge/findings/scaffold_probe.cpp"
test_made="$scratch/tests/runner/findings/scaffold_probe_test.cpp"
[[ -f "$made" ]] || fail "no family source"
grep -q 'void judge_scaffold_probe(ShapeJudge& judge)' "$made" || fail "no judge function"
grep -q 'std::vector<rules::FindingInfo> scaffold_probe_catalog()' "$made" || fail "no catalog function"
grep -q '{"scaffold-probe", Category::suspicious,' "$made" || fail "no catalog entry with the id and category"
grep -q 'Source::probe}' "$made" || fail "the source is not probe by default"
[[ "$(tail -n 1 "$scratch/$list")" == "KAUDIT_RUNTIME_FINDING(scaffold_probe)" ]] || fail "no registration line"
[[ "$(entries "$scratch/$list")" -eq "$(( $(entries "$src/$list") + 1 ))" ]] || fail "list not one line longer"
[[ -f "$test_made" ]] || fail "no unit test stub"
grep -q 'TEST(ScaffoldProbeFinding, ReportsTheOffence)' "$test_made" || fail "no test of the offence"
grep -q 'TEST(ScaffoldProbeFinding, HonestEvidenceHasNone)' "$test_made" || fail "no test of honest evidence"
grep -q 'f.id == "scaffold-probe"' "$test_made" || fail "the test stub does not look for the id"
grep -q 'docs/findings.md' "$scratch/out.txt" || fail "no docs step printed"
grep -q 'confirmed_by' "$scratch/out.txt" || fail "no policy step printed"

# A timing finding, and ids with digits.
"$src/scripts/add_runtime_finding.sh" --root "$scratch" scaffold-timing-2x benchmark_aware timing > /dev/null ||
  fail "timing finding not made"
grep -q 'Source::timing}' "$scratch/runner/judge/findings/scaffold_timing_2x.cpp" || fail "no timing source"
grep -q 'TEST(ScaffoldTiming2xFinding,' "$scratch/tests/runner/findings/scaffold_timing_2x_test.cpp" || fail "bad test name"

# Refusals, each writing nothing: a second run, a bad id, category or source,
# and an id the runner's catalog already has.
snapshot() { (cd "$scratch" && find runner tests -type f -exec md5sum {} + | sort); }
kept="$(snapshot)"
refused() { ! "$src/scripts/add_runtime_finding.sh" --root "$scratch" "$@" > /dev/null 2>&1; }
refused scaffold-probe suspicious || fail "a second run did not refuse"
refused Bad_Id cheat || fail "bad id accepted"
refused fine-id sneaky || fail "bad category accepted"
refused fine-id cheat trace || fail "a trace source accepted"
refused input-mutated cheat || fail "an id already in a family's catalog accepted"
refused timing-forged cheat || fail "an id already in finding_catalog.cpp accepted"
[[ "$(snapshot)" == "$kept" ]] || fail "a refused run wrote something"

if [[ -n "$cxx" ]]; then
  for f in "$made" "$test_made"; do
    "$cxx" -std=c++20 -fsyntax-only -Wall -Wextra -Wshadow -Werror -I"$scratch" -I"$src" "$f" ||
      fail "$(basename "$f") does not compile"
  done
fi

[[ "$(md5sum "$src/$list")" == "$before" ]] || fail "the real list changed"
[[ ! -e "$src/runner/judge/findings/scaffold_probe.cpp" && ! -e "$src/tests/runner/findings/scaffold_probe_test.cpp" ]] ||
  fail "wrote into the real tree"
echo "add_runtime_finding_scaffold: ok"
