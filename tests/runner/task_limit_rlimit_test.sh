#!/usr/bin/env bash
# RLIMIT_NPROC as the task limit (kaudit not root, and no cgroup it may
# make): the kernel counts a process against the limit of its own user
# namespace and again against the limit its namespace was made with, summed
# over every process of the same user. Set before bubblewrap makes the
# run's namespace, the limit would bind that outer count too, so that every
# run of a batch, kaudit and the user's other processes shared one count of
# --max-tasks: one run's fork bomb would refuse the others' threads. The
# harness sets it inside the namespace instead: the submission runs under
# the limit, and the sandbox's first process (the namespace's maker) not.
# As root the test runs kaudit as nobody (root is exempt from RLIMIT_NPROC).
set -uo pipefail
kaudit="$1"
root="$2"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
chmod 777 "$out"
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
/usr/bin/python3 -c 'import torch' 2>/dev/null || skip "no /usr/bin/python3 with torch (apt-get install python3-torch)"
as_user=()
if [[ $(id -u) == 0 ]]; then
  command -v setpriv >/dev/null || skip "setpriv (util-linux) is needed to run kaudit as nobody"
  as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
fi
cd "$out"
env -i PATH=/usr/bin:/bin HOME="$out" TMPDIR="$out" "${as_user[@]}" "$kaudit" run --device cpu --quiet \
  --problem "$root/tests/runner/problems/linear_relu" --solution "$root/tests/runner/solutions/report_nproc.py" \
  --max-tasks 64 --modes bench --seeds 1 --off-grid 0 --distributions '' --stress-scales '' -o "$out/run.json" \
  >"$out/log" 2>&1
[[ -s $out/run.json ]] || { cat "$out/log"; fail "no run.json"; }
/usr/bin/python3 - "$out/run.json" <<'PY'
import json, re, sys
r = json.load(open(sys.argv[1]))
iso = r["isolation"]
if not iso.get("sandboxed"):
    print("SKIP: no sandbox here:", iso.get("weakness")); sys.exit(77)
protections = " ".join(iso["protections"])
if "RLIMIT_NPROC" not in protections:
    print("SKIP: the task limit is not RLIMIT_NPROC here:", protections[-300:], iso.get("weakness", "")); sys.exit(77)
if r["result"] != "correct":
    print("FAIL: result", r["result"], json.dumps(r.get("error"))[:800]); sys.exit(1)
err = r["submission_process"]["stderr_tail"]
m = re.search(r"kaudit-nproc self=(\S+) first=(\S+)", err)
if not m:
    print("FAIL: the solution's report is missing:", err[-800:]); sys.exit(1)
if m.group(1) != "64":
    print("FAIL: the submission runs under RLIMIT_NPROC", m.group(1), "not 64"); sys.exit(1)
if m.group(2) == "64":
    print("FAIL: the sandbox's first process has RLIMIT_NPROC 64 too: the limit was set before its user "
          "namespace was made, so it binds every run of the user together"); sys.exit(1)
print("PASS: submission", m.group(1), "- the namespace's maker", m.group(2))
PY
