#!/usr/bin/env bash
# Ctrl-C in the middle of a CPU audit (issue 18, item 5): the first
# submission (tests/runner/solutions/hang.py, its helper renamed so that the
# runner's own test of it, which looks at every process of the machine, does
# not see this one's) hangs in its first call after starting a helper that
# leaves its process group; SIGINT then must end the
# audit with status 130 and a message, leave none of its processes (the
# runs' sandboxes, harnesses, the helper) and no workspace in TMPDIR, write
# no evidence of the interrupted run, and start nothing more. The same
# command then resumes the batch and finishes it.
set -uo pipefail
kaudit="$1"
root="$2"
out=$(mktemp -d)
tmp=$(mktemp -d)
trap 'rm -rf "$out" "$tmp"' EXIT
cd "$root"
fail() { echo "FAIL: $*"; cat "$out"/log* 2>/dev/null | tail -30; exit 1; }

# Every process under pid $1, one "PID CMDLINE" a line.
descendants() {
  /usr/bin/python3 -I - "$1" <<'PY'
import os, sys
children = {}
for p in os.listdir("/proc"):
    if not p.isdigit():
        continue
    try:
        stat = open("/proc/%s/stat" % p).read()
        cmd = open("/proc/%s/cmdline" % p, "rb").read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        continue
    children.setdefault(int(stat[stat.rindex(")") + 2:].split()[1]), []).append((int(p), cmd))
todo = [int(sys.argv[1])]
while todo:
    for pid, cmd in children.get(todo.pop(), []):
        print(pid, cmd)
        todo.append(pid)
PY
}

mkdir -p "$out/solutions"
sed 's/kaudit-hang-test-helper/kaudit-interrupt-test-helper/' tests/runner/solutions/hang.py > "$out/solutions/hang.py"
cat > "$out/manifest.json" <<EOF
{"schema": "kaudit-corpus/1", "entries": [
  {"path": "$out/solutions/hang.py", "problem": "tests/runner/problems/linear_relu"},
  {"path": "tests/runner/solutions/kb_softplus_clean.py", "problem": "tests/runner/problems/kb_softplus"}]}
EOF
batch="$out/batch"
audit=("$kaudit" audit --device cpu --jobs 1 --manifest "$out/manifest.json" -o "$batch")
# A background job of a script has SIGINT ignored; a terminal's Ctrl-C reaches
# a foreground kaudit with it at its default, as env sets it here.
TMPDIR="$tmp" env --default-signal=INT "${audit[@]}" > "$out/log1" 2>&1 &
pid=$!

# Waits (5 minutes at most) until the hanging call has started its helper.
for ((i = 0; i < 1500; i++)); do
  descendants "$pid" > "$out/procs"
  grep -q kaudit-interrupt-test-helper "$out/procs" && break
  kill -0 "$pid" 2>/dev/null || fail "the audit ended before the hanging call started"
  sleep 0.2
done
grep -q kaudit-interrupt-test-helper "$out/procs" || fail "the hanging call did not start"
grep -q kaudit_harness "$out/procs" || fail "no harness process seen: $(cat "$out/procs")"
compgen -G "$tmp/kaudit-run-*" > /dev/null || fail "no workspace under TMPDIR while the run was going"

kill -INT "$pid"
wait "$pid"
rc=$?
[[ $rc == 130 ]] || fail "exit status $rc after SIGINT, want 130"
grep -q "interrupted by SIGINT: 0 of 2 submission(s) decided" "$out/log1" || fail "no message on the interruption"
grep -q "same command" "$out/log1" || fail "the message does not say how to resume"
# A process still running has its command line; a dead one (a zombie, or one
# whose memory is gone as it exits) has none.
while read -r p cmd; do
  now=$(tr '\0' ' ' 2>/dev/null < "/proc/$p/cmdline" | sed 's/ $//')
  [[ -n "$cmd" && "$now" == "$cmd" ]] && fail "process $p ($cmd) outlived the interrupted audit"
done < "$out/procs"
[[ -z "$(ls -A "$tmp")" ]] || fail "left in TMPDIR: $(ls -A "$tmp")"
for f in run.json verdict.json; do
  [[ ! -e "$batch/solutions__hang/$f" ]] || fail "the interrupted run wrote $f"
done
# What the stopped run reached is kept beside them, as no evidence
# (issue 27, item 5): where it was and how long it had run.
/usr/bin/python3 -I - "$batch/solutions__hang/interrupted.json" <<'PY' || fail "interrupted.json: $(cat "$batch/solutions__hang/interrupted.json" 2>&1)"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["schema"] == "kaudit-interrupted/1", r
assert r["stopped_in"]["phase"] == "correctness" and r["stopped_in"]["shape"] == 0, r
assert r["seconds"] > 0 and any(p["phase"] == "start" for p in r["phases"]), r
PY
[[ ! -e "$batch/solutions__kb_softplus_clean/verdict.json" ]] || fail "a run started after the interruption"
[[ ! -e "$batch/summary.json" ]] || fail "an interrupted first audit wrote a summary"

# The same command resumes and finishes the batch.
TMPDIR="$tmp" "${audit[@]}" > "$out/log2" 2>&1
rc=$?
[[ $rc == 0 ]] || fail "exit status $rc when resuming, want 0"
/usr/bin/python3 -I - "$batch" <<'PY' || fail "the resumed batch"
import json, sys
s = json.load(open(sys.argv[1] + "/summary.json"))
got = {e["key"]: (e["result"], e["integrity"]) for e in s["submissions"]}
assert got["solutions__kb_softplus_clean"] == ("correct", "clean"), got
assert got["solutions__hang"][0] == "error", got
PY
[[ -z "$(ls -A "$tmp")" ]] || fail "the resumed audit left in TMPDIR: $(ls -A "$tmp")"
[[ ! -e "$batch/solutions__hang/interrupted.json" ]] || fail "the finished run left interrupted.json"
# With two jobs the children's kill reads as one the run did not send (a
# cause to retry it alone, on a shared device): an interrupted run is never
# retried, and each run in flight keeps its interrupted.json.
cp "$out/solutions/hang.py" "$out/solutions/hang_two.py"
cat > "$out/manifest2.json" <<EOF
{"schema": "kaudit-corpus/1", "entries": [
  {"path": "$out/solutions/hang.py", "problem": "tests/runner/problems/linear_relu"},
  {"path": "$out/solutions/hang_two.py", "problem": "tests/runner/problems/linear_relu"}]}
EOF
TMPDIR="$tmp" env --default-signal=INT "$kaudit" audit --device cpu --jobs 2 --manifest "$out/manifest2.json" \
  -o "$out/batch2" > "$out/log3" 2>&1 &
pid=$!
for ((i = 0; i < 1500; i++)); do
  descendants "$pid" > "$out/procs"
  (( $(grep -c kaudit-interrupt-test-helper "$out/procs") >= 2 )) && break
  kill -0 "$pid" 2>/dev/null || fail "the two-job audit ended before both hanging calls started"
  sleep 0.2
done
kill -INT "$pid"
wait "$pid"
[[ $? == 130 ]] || fail "two jobs: exit status after SIGINT, want 130"
for key in solutions__hang solutions__hang_two; do
  [[ -e "$out/batch2/$key/interrupted.json" ]] || fail "two jobs: $key wrote no interrupted.json"
done
echo "audit interrupt test passed"
