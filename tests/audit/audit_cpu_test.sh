#!/usr/bin/env bash
# kaudit audit end to end in CPU mode (no GPU): a batch first audited
# statically (--device none, everything not-run), then resumed with
# --device cpu --jobs 2, which runs what was not run and must reach every
# verdict of tests/audit/cpu_manifest.json (--expect); the jobs take turns at
# the device (device_wait_seconds in each run document); the reports.
set -uo pipefail
kaudit="$1"
root="$2"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cd "$root"
fail() { echo "FAIL: $*"; cat "$out"/log* 2>/dev/null | tail -40; exit 1; }
manifest=tests/audit/cpu_manifest.json

"$kaudit" audit --device none --manifest "$manifest" -o "$out" > "$out/log1" 2>&1
grep -q '"not-run": 9' "$out/summary.json" || fail "a static-only batch leaves every submission not-run"

"$kaudit" audit --device cpu --jobs 2 --expect --heartbeat 1 --manifest "$manifest" -o "$out" > "$out/log2" 2>&1
rc=$?
[[ $rc == 0 ]] || fail "exit status $rc, want 0 with --expect (every verdict as the manifest says)"
grep -q "9 of 9 verdicts match the manifest" "$out/log2" || fail "not every verdict matched the manifest"
# No run ends within a second of its start (a torch import alone takes longer): the heartbeat speaks.
grep -Eq '^\.\.\. [0-9]+ of 9 done; running: solutions__' "$out/log2" || fail "no heartbeat naming the runs in progress"
for key in solutions__clean solutions__cache_identity solutions__crash; do
  [[ -s "$out/$key/run.json" ]] || fail "$key was not run when the batch was resumed on the CPU"
  grep -q '"device_wait_seconds"' "$out/$key/run.json" || fail "$key: jobs did not take turns at the device"
done
python3 - "$out/summary.json" <<'PY' || fail "summary.json"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["device"] == "cpu", s["device"]
assert s["counts"]["clean"] == 3 and s["counts"]["cheat"] == 4 and s["counts"]["unverified"] == 2, s["counts"]
assert s["expectations"] == {"matched": 9, "of": 9}, s["expectations"]
PY
# Issue 15, item 6: on the CPU the ATen op record confirms the banned call;
# a record the submission blinded leaves the verdict unverified, and says why.
python3 - "$out" <<'PY' || fail "banned_topk verdicts"
import json, sys
out = sys.argv[1]
v = json.load(open(out + "/solutions__topk_method/verdict.json"))
deciding = {f["id"] for f in v["deciding"]}
assert {"banned-call", "banned-aten-op"} <= deciding, deciding
v = json.load(open(out + "/solutions__topk_no_dispatch/verdict.json"))
assert "_DisableTorchDispatch" in (v["integrity_reason"] or ""), v["integrity_reason"]
v = json.load(open(out + "/solutions__topk_own/verdict.json"))
assert v["integrity"] == "clean" and not v["deciding"], v
PY
[[ -s "$out/report.html" && -s "$out/report.md" ]] || fail "reports missing"

# Issue 15, item 7: a machine short of space runs nothing and says so,
# apart from the submission's result (--min-free-gib above any disk here);
# resumed with space enough, the run is made.
infra=$(mktemp -d)
trap 'rm -rf "$out" "$infra"' EXIT
"$kaudit" audit --device cpu --min-free-gib 1000000 --problem tests/runner/problems/linear_relu \
  tests/runner/solutions/clean.py -o "$infra" > "$out/log3" 2>&1
rc=$?
grep -q "failed for the machine, not the submission" "$out/log3" || fail "no infrastructure-error line"
[[ $rc == 0 ]] || fail "exit status $rc for an infrastructure-error under the default --fail-on (cheat,benchmark-aware)"
# Issue 18, item 4: --fail-on names the outcomes that fail the audit.
"$kaudit" audit --device cpu --min-free-gib 1000000 --fail-on error,infrastructure-error \
  --problem tests/runner/problems/linear_relu tests/runner/solutions/clean.py -o "$infra.2" > "$out/log5" 2>&1
rc=$?
rm -rf "$infra.2"
[[ $rc == 1 ]] || fail "exit status $rc, want 1 with --fail-on error,infrastructure-error"
"$kaudit" audit --device none --fail-on bogus --problem tests/runner/problems/linear_relu \
  tests/runner/solutions/clean.py -o "$infra.3" > "$out/log6" 2>&1
rc=$?
rm -rf "$infra.3"
[[ $rc == 2 ]] || fail "exit status $rc, want 2 for an unknown --fail-on outcome"
python3 - "$infra" <<'PY' || fail "infrastructure-error verdict"
import glob, json, sys
v = json.load(open(glob.glob(sys.argv[1] + "/*/verdict.json")[0]))
assert v["result"] == "infrastructure-error" and v["integrity"] == "unverified", v
assert "free under" in v["integrity_reason"], v["integrity_reason"]
PY
"$kaudit" audit --device cpu --problem tests/runner/problems/linear_relu tests/runner/solutions/clean.py \
  -o "$infra" > "$out/log4" 2>&1
python3 - "$infra" <<'PY' || fail "an infrastructure-error is run again when the batch resumes"
import glob, json, sys
v = json.load(open(glob.glob(sys.argv[1] + "/*/verdict.json")[0]))
assert v["result"] == "correct" and v["integrity"] == "clean", v
PY
echo "audit cpu test passed"
