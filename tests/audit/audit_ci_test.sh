#!/usr/bin/env bash
# kaudit audit's CI outputs and a batch folder's safety, without running
# anything (--device none), issue 18 items 3 and 5:
#  - --sarif and kaudit analyze --format sarif validate against the SARIF
#    2.1.0 schema (argument 3) with Debian's python3-jsonschema, formats
#    checked; every verdict's finding is a result, fingerprints are stable;
#  - --junit parses as XML with one testcase per submission and the counts
#    of its outcomes;
#  - a folder holding another batch is refused (2) unless --force, a held
#    lock refuses a second writer (2) naming its holder;
#  - kaudit verdict stops (2) on a corrupt summary.json and reports a
#    corrupt run.json as an error, not as not-run.
set -uo pipefail
kaudit="$1"
root="$2"
schema="$3"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cd "$root"
fail() { echo "FAIL: $*"; cat "$out"/log* 2>/dev/null | tail -30; exit 1; }
py() { /usr/bin/python3 -I "$@"; }  # Debian's Python (python3-jsonschema); -I: nothing from the current folder
[[ -s "$schema" ]] || fail "no SARIF schema at $schema"

# Validates SARIF files against the schema, formats (uri, uri-reference) checked.
validate() {
  py - "$schema" "$@" <<'PY'
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
v = jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker())
# The validator must see a relative helpUri as the error it is, or it checks nothing.
bad = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x", "rules": [{"id": "r", "helpUri": "docs/x.md"}]}}}]}
assert list(v.iter_errors(bad)), "the validator does not check formats"
for path in sys.argv[2:]:
    errors = list(v.iter_errors(json.load(open(path))))
    for e in errors[:5]:
        print(path, list(e.absolute_path), e.message[:200])
    assert not errors, path
PY
}

# Three topk submissions: a clean one, a monkeypatching cheat (static
# analysis alone decides it) and a banned call (needs a run to decide).
batch_args=(--device none --problem kernels/problems/topk kernels/corpus/topk/clean_two_stage_select.py
            kernels/corpus/topk/cheat_patch_allclose.py kernels/corpus/topk/cheat_sort_method_alias.py)
"$kaudit" analyze --format sarif kernels/corpus/topk -o "$out/analyze.sarif" > "$out/log0" 2>&1
validate "$out/analyze.sarif" || fail "kaudit analyze --format sarif is not valid SARIF 2.1.0"
py - "$out/analyze.sarif" <<'PY' || fail "kaudit analyze --format sarif: structure"
import json, sys
run = json.load(open(sys.argv[1]))["runs"][0]
assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"].startswith("file:///")
assert run["results"], "the topk corpus has findings"
for r in run["results"]:
    art = r["locations"][0]["physicalLocation"]["artifactLocation"]
    assert art["uriBaseId"] == "%SRCROOT%" and art["uri"].startswith("kernels/corpus/topk/"), art
    assert ":" in r["partialFingerprints"]["kauditFinding/v1"], r
for rule in run["tool"]["driver"]["rules"]:
    assert rule["helpUri"].endswith("findings.md#" + rule["id"]), rule
PY

batch="$out/batch"
"$kaudit" audit "${batch_args[@]}" -o "$batch" --sarif "$out/ci/audit.sarif" \
  --junit "$out/ci/audit.xml" > "$out/log1" 2>&1
rc=$?
[[ $rc == 0 || $rc == 1 ]] || fail "exit status $rc"
[[ -s "$out/ci/audit.sarif" && -s "$out/ci/audit.xml" ]] || fail "--sarif/--junit wrote nothing"
validate "$out/ci/audit.sarif" || fail "kaudit audit --sarif is not valid SARIF 2.1.0"
py - "$batch" "$out/ci/audit.sarif" "$out/ci/audit.xml" <<'PY' || fail "audit SARIF and JUnit: structure"
import json, sys, xml.etree.ElementTree as ET
batch, sarif, junit = sys.argv[1:]
summary = json.load(open(batch + "/summary.json"))
subs = summary["submissions"]
findings = 0
for e in subs:
    v = json.load(open(batch + "/" + e["key"] + "/verdict.json"))
    findings += len(v["deciding"]) + len(v["beside"])
results = json.load(open(sarif))["runs"][0]["results"]
assert findings > 0 and len(results) == findings, (len(results), findings)
assert {r["properties"]["submission"] for r in results} <= {e["key"] for e in subs}
suites = ET.parse(junit).getroot()
assert suites.tag == "testsuites", suites.tag
suite = suites.find("testsuite")
cases = suite.findall("testcase")
assert [c.get("name") for c in cases] == [e["key"] for e in subs]
assert all(c.get("classname") for c in cases)
fails = sum(e["integrity"] in ("cheat", "benchmark-aware") or e["result"] == "incorrect" for e in subs)
skips = sum(e["result"] == "not-run" and e["integrity"] not in ("cheat", "benchmark-aware") for e in subs)
assert fails > 0, "the batch holds a cheat that static analysis decides"
assert int(suite.get("tests")) == len(subs) and int(suite.get("failures")) == fails, suite.attrib
assert int(suite.get("skipped")) == skips and int(suite.get("errors")) == 0, suite.attrib
assert sum(c.find("failure") is not None for c in cases) == fails
for c in cases:
    f = c.find("failure")
    if f is not None:
        assert f.get("type") in ("cheat", "benchmark-aware") and f.get("message").startswith(f.get("type") + ": "), f.attrib
PY
py -c 'import json,sys; print("\n".join(sorted(r["partialFingerprints"]["kauditFinding/v1"] for r in json.load(open(sys.argv[1]))["runs"][0]["results"])))' \
  "$out/ci/audit.sarif" > "$out/fingerprints1"

# Resumed: the same batch, the same fingerprints.
"$kaudit" audit "${batch_args[@]}" -o "$batch" --sarif "$out/ci/audit.sarif" > "$out/log2" 2>&1
py -c 'import json,sys; print("\n".join(sorted(r["partialFingerprints"]["kauditFinding/v1"] for r in json.load(open(sys.argv[1]))["runs"][0]["results"])))' \
  "$out/ci/audit.sarif" > "$out/fingerprints2"
cmp -s "$out/fingerprints1" "$out/fingerprints2" || fail "fingerprints changed between two audits of one batch"
[[ -s "$batch/inputs.json" ]] || fail "no inputs.json recorded"

# Another batch into the same folder: refused, nothing changed; --force redoes it.
sum_before=$(md5sum < "$batch/summary.json")
"$kaudit" audit --device none --problem tests/runner/problems/linear_relu tests/runner/solutions/clean.py \
  -o "$batch" > "$out/log3" 2>&1
rc=$?
[[ $rc == 2 ]] || fail "exit status $rc for a folder holding another batch, want 2"
grep -q "holds another batch" "$out/log3" || fail "no message naming the other batch"
grep -q -- "--force" "$out/log3" || fail "the message does not say how to go on"
[[ $(md5sum < "$batch/summary.json") == "$sum_before" ]] || fail "the other batch's summary was changed"

# A held lock: a second writer is refused, naming the holder.
(
  exec 9>>"$batch/.kaudit.lock"
  flock -n 9 || exit 3
  printf 'pid 4242\n' > "$batch/.kaudit.lock"
  "$kaudit" audit "${batch_args[@]}" -o "$batch" > "$out/log4" 2>&1
  echo "audit=$?" > "$out/lockrc"
  "$kaudit" verdict "$batch" > "$out/log5" 2>&1
  echo "verdict=$?" >> "$out/lockrc"
)
grep -q "audit=2" "$out/lockrc" || fail "an audit of a locked folder: $(cat "$out/lockrc")"
grep -q "verdict=2" "$out/lockrc" || fail "kaudit verdict of a locked folder: $(cat "$out/lockrc")"
grep -q "being written by another kaudit (pid 4242" "$out/log4" || fail "the holder is not named"
# The holder gone, its lock is taken over.
"$kaudit" audit "${batch_args[@]}" -o "$batch" > "$out/log6" 2>&1
rc=$?
[[ $rc == 0 || $rc == 1 ]] || fail "exit status $rc after the lock's holder ended"

"$kaudit" audit --device none --force --problem tests/runner/problems/linear_relu tests/runner/solutions/clean.py \
  -o "$batch" > "$out/log7" 2>&1
rc=$?
[[ $rc == 0 ]] || fail "exit status $rc with --force, want 0"
py -c 'import json,sys; s=json.load(open(sys.argv[1])); assert len(s["submissions"]) == 1, s' "$batch/summary.json" ||
  fail "--force did not audit the new batch"

# Corrupt evidence: a truncated run.json is an error that says so; a corrupt
# summary.json stops kaudit verdict and stays as it was.
key=$(py -c 'import json,sys; print(json.load(open(sys.argv[1]))["submissions"][0]["key"])' "$batch/summary.json")
printf '{"schema": "kaudit-run/1", "result": "cor' > "$batch/$key/run.json"
"$kaudit" verdict "$batch/$key" > "$out/log8" 2>&1
grep -q "result: error" "$out/log8" || fail "a truncated run.json is not an error: $(cat "$out/log8")"
grep -q "corrupt" "$batch/$key/verdict.json" || fail "the verdict does not say the evidence is corrupt"
printf '{"schema": "kaudit-audit/1", "submissions": [' > "$batch/summary.json"
"$kaudit" verdict "$batch" > "$out/log9" 2>&1
rc=$?
[[ $rc == 2 ]] || fail "exit status $rc for kaudit verdict on a corrupt summary.json, want 2"
grep -q "summary.json is not valid JSON" "$out/log9" || fail "no message on the corrupt summary"
[[ $(cat "$batch/summary.json") == '{"schema": "kaudit-audit/1", "submissions": [' ]] || fail "the corrupt summary was replaced"
echo "audit ci test passed"
