#!/usr/bin/env bash
# kaudit audit --shard and kaudit merge from the command line, without Slurm
# and without running anything (--device none): shards of a manifest are
# disjoint and together the whole batch, merged they give the verdicts of an
# unsharded audit with the same exit status; usage errors, a shard folder
# reused for another shard, a missing shard, a conflict and one shard twice.
set -uo pipefail
kaudit="$1"
root="$2"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cd "$root"
fail() { echo "FAIL: $*"; tail -20 "$out"/log* 2>/dev/null; exit 1; }
manifest=tests/audit/cpu_manifest.json

for bad in 3/2 2/2 0/0 2 x/3 -1/3; do
  "$kaudit" audit --device none --manifest "$manifest" --shard "$bad" -o "$out/bad" > "$out/log-bad" 2>&1
  rc=$?
  [[ $rc == 2 ]] || fail "--shard $bad: exit status $rc, want 2 (usage error)"
  [[ ! -e "$out/bad" ]] || fail "--shard $bad wrote a batch folder"
done
grep -q "numbered 0 to 1" <("$kaudit" audit --device none --manifest "$manifest" --shard 3/2 2>&1) ||
  fail "--shard 3/2 does not say how shards are numbered"

"$kaudit" audit --device none --manifest "$manifest" -o "$out/whole" > "$out/log-whole" 2>&1
whole_rc=$?
[[ $whole_rc == 0 || $whole_rc == 1 ]] || fail "the unsharded audit: exit status $whole_rc"
for i in 0 1 2; do
  "$kaudit" audit --device none --manifest "$manifest" --shard "$i/3" -o "$out/shard-$i" > "$out/log-$i" 2>&1
  rc=$?
  [[ $rc == 0 || $rc == 1 ]] || fail "shard $i/3: exit status $rc"
  grep -q "shard $i/3 (numbered from 0) of 9 submission(s)" "$out/log-$i" || fail "shard $i/3 does not say which shard it is"
done

python3 - "$out" <<'PY' || fail "the shards"
import json, sys
out = sys.argv[1]
whole = json.load(open(out + "/whole/summary.json"))
keys = [e["key"] for e in whole["submissions"]]
seen = []
for i in range(3):
    s = json.load(open(f"{out}/shard-{i}/summary.json"))
    assert s["shard"]["index"] == i and s["shard"]["count"] == 3, s["shard"]
    assert s["shard"]["inputs"]["count"] == 9, s["shard"]["inputs"]
    assert [x["key"] for x in s["shard"]["inputs"]["submissions"]] == keys, "the inputs are the whole manifest"
    part = [e["key"] for e in s["submissions"]]
    assert len(part) == 3, (i, part)
    assert part == sorted(keys)[i::3] or set(part) == set(sorted(keys)[i::3]), (i, part)
    seen += part
assert sorted(seen) == sorted(keys), "disjoint, and together the whole batch"
PY

# A shard resumes only its own folder.
"$kaudit" audit --device none --manifest "$manifest" --shard 1/3 -o "$out/shard-0" > "$out/log-reuse" 2>&1
[[ $? == 2 ]] && grep -q "holds shard 0/3" "$out/log-reuse" || fail "shard 1/3 into shard 0/3's folder was not refused"

"$kaudit" merge "$out/merged" "$out/shard-2" "$out/shard-0" "$out/shard-1" > "$out/log-merge" 2>&1
rc=$?
[[ $rc == "$whole_rc" ]] || fail "merge exit status $rc, the unsharded audit's $whole_rc"
grep -q "3 of 3 shard(s) merged" "$out/log-merge" || fail "the merge does not say what it merged"
[[ -s "$out/merged/report.html" && -s "$out/merged/report.md" ]] || fail "merged reports missing"
python3 - "$out" <<'PY' || fail "the merged batch"
import json, os, sys
out = sys.argv[1]
whole = json.load(open(out + "/whole/summary.json"))
merged = json.load(open(out + "/merged/summary.json"))
verdicts = lambda s: [(e["key"], e["result"], e["integrity"], e.get("matches")) for e in s["submissions"]]
assert verdicts(merged) == verdicts(whole), (verdicts(merged), verdicts(whole))
assert merged["counts"] == whole["counts"], (merged["counts"], whole["counts"])
assert merged["expectations"] == whole["expectations"]
assert merged["merge"]["shards"] == {"count": 3, "present": [0, 1, 2], "missing": []}
for e in merged["submissions"]:
    for f in ("submission.json", "analysis.json", "verdict.json"):
        assert os.path.getsize(f"{out}/merged/{e['key']}/{f}") > 0, (e["key"], f)
PY

# A missing shard: named on the output and in summary.json, exit status 2
# unless --allow-missing.
"$kaudit" merge "$out/partial" "$out/shard-0" "$out/shard-2" > "$out/log-partial" 2>&1
rc=$?
[[ $rc == 2 ]] || fail "a merge without shard 1: exit status $rc, want 2"
grep -q "shard(s) \[1\] (numbered from 0) of 3 missing, holding 3 submission(s)" "$out/log-partial" ||
  fail "the missing shard is not named"
python3 -c "import json,sys; m=json.load(open(sys.argv[1]))['merge']; assert m['shards']['missing']==[1] and len(m['missing'])==3, m" \
  "$out/partial/summary.json" || fail "summary.json does not list the missing shard"
"$kaudit" merge --allow-missing "$out/partial" "$out/shard-0" "$out/shard-2" > "$out/log-partial2" 2>&1
rc=$?
[[ $rc == 0 || $rc == 1 ]] || fail "--allow-missing: exit status $rc"
"$kaudit" merge --allow-missing --fail-on not-run "$out/partial" "$out/shard-0" "$out/shard-2" > /dev/null 2>&1
[[ $? == 1 ]] || fail "the missing submissions are not-run for --fail-on"

# One shard twice; a conflicting verdict, named with both folders.
cp -r "$out/shard-0" "$out/shard-0b"
"$kaudit" merge "$out/twice" "$out/shard-0" "$out/shard-0b" "$out/shard-1" "$out/shard-2" > "$out/log-twice" 2>&1
[[ $? == 2 ]] && grep -q "shard 0/3 is in both" "$out/log-twice" || fail "one shard twice was not refused"
[[ ! -e "$out/twice" ]] || fail "a refused merge wrote its folder"
key=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['submissions'][0]['key'])" "$out/shard-0/summary.json")
flipped=$(python3 - "$out/shard-0b" "$key" <<'PY'
import json, sys
d, key = sys.argv[1], sys.argv[2]
s = json.load(open(d + "/summary.json"))
del s["shard"]  # a whole batch now, merged with the unsharded one
v = json.load(open(f"{d}/{key}/verdict.json"))
v["integrity"] = "clean" if v["integrity"] == "cheat" else "cheat"
for e in s["submissions"]:
    if e["key"] == key: e["integrity"] = v["integrity"]
json.dump(s, open(d + "/summary.json", "w"))
json.dump(v, open(f"{d}/{key}/verdict.json", "w"))
print(v["integrity"])
PY
)
"$kaudit" merge "$out/conflict" "$out/whole" "$out/shard-0b" > "$out/log-conflict" 2>&1
[[ $? == 2 ]] || fail "a conflicting verdict was not refused"
grep -q "$key: $out/whole says .*, $out/shard-0b says .* / $flipped" "$out/log-conflict" || fail "the conflict does not name both"
"$kaudit" merge --on-conflict last "$out/conflict" "$out/whole" "$out/shard-0b" > "$out/log-conflict2" 2>&1
rc=$?
[[ $rc == 0 || $rc == 1 ]] || fail "--on-conflict last: exit status $rc"
grep -q "conflict: $key: .*; kept $out/shard-0b" "$out/log-conflict2" || fail "the resolved conflict is not reported"
python3 -c "import json,sys; e=[e for e in json.load(open(sys.argv[1]))['submissions'] if e['key']==sys.argv[2]][0]; assert e['integrity']==sys.argv[3], e" \
  "$out/conflict/summary.json" "$key" "$flipped" || fail "--on-conflict last did not keep the last batch's verdict"
"$kaudit" merge --on-conflict bogus "$out/conflict" "$out/whole" > /dev/null 2>&1
[[ $? == 2 ]] || fail "--on-conflict bogus is a usage error"
echo "shard and merge test passed"
