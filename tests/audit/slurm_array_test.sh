#!/usr/bin/env bash
# scripts/slurm end to end on a one-node Slurm that this test starts itself
# (Debian's slurm-wlm: slurmctld and slurmd on localhost, AuthType=auth/none,
# its own slurm.conf, ports and spool in a temporary folder): a manifest of
# four pure-PyTorch submissions audited in CPU mode as an array of three
# shards (submit-audit.sh: audit-array.sbatch with SBATCH_GRES=none, since
# this node has no GPU), the merge as a dependent job; the merged summary must
# hold every submission with the manifest's verdicts. Exit status 77 (a skip,
# with the reason) when not root or when the daemons cannot start here.
set -uo pipefail
kaudit=$(realpath "$1")
root="$2"
cd "$root"
skip() { echo "SKIP: $*"; exit 77; }
tmp=""
fail() {
  echo "FAIL: $*"
  for f in "$tmp"/slurmctld.log "$tmp"/slurmd.log "$tmp"/out/logs/*; do
    [[ -f $f ]] && { echo "--- $f"; tail -25 "$f"; }
  done
  exit 1
}

[[ $(id -u) == 0 ]] || skip "not root: this test starts slurmctld and slurmd, which need root here"
for c in slurmctld slurmd sbatch scontrol sinfo squeue scancel; do
  command -v "$c" > /dev/null || skip "$c is not installed (scripts/setup.sh installs slurm-wlm)"
done

tmp=$(mktemp -d /tmp/kaudit-slurm.XXXXXX)
daemons=()
slurm_jobs=()
cleanup() {
  if ((${#slurm_jobs[@]})); then
    scancel "${slurm_jobs[@]}" 2> /dev/null
    # Bounded: the daemons must outlive the jobs they stop.
    for _ in $(seq 30); do
      [[ -z $(squeue -h -j "$(IFS=,; echo "${slurm_jobs[*]}")" 2> /dev/null) ]] && break
      sleep 1
    done
  fi
  for p in "${daemons[@]}"; do kill "$p" 2> /dev/null; done
  for p in "${daemons[@]}"; do wait "$p" 2> /dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT

host=$(hostname -s)
read -r ctld_port node_port < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
mkdir -p "$tmp/state" "$tmp/spool"
export SLURM_CONF="$tmp/slurm.conf"
cat > "$SLURM_CONF" << EOF
ClusterName=kaudit-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$node_port
AuthType=auth/none
CredType=cred/none
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
MinJobAge=600
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF

slurmctld -D -i -f "$SLURM_CONF" > "$tmp/slurmctld.out" 2>&1 &
daemons+=($!)
slurmd -D -f "$SLURM_CONF" > "$tmp/slurmd.out" 2>&1 &
daemons+=($!)
# The node registers within a few seconds; polled, at most 60 s.
state=""
for _ in $(seq 60); do
  for p in "${daemons[@]}"; do
    kill -0 "$p" 2> /dev/null ||
      skip "a Slurm daemon could not start here: $(tail -3 "$tmp"/slurmctld.log "$tmp"/slurmd.log "$tmp"/*.out 2> /dev/null | tr '\n' ' ')"
  done
  state=$(sinfo -h -n "$host" -o %T 2> /dev/null)
  [[ $state == idle ]] && break
  sleep 1
done
[[ $state == idle ]] || skip "the Slurm node did not come up (state '$state'): $(sinfo -h -R 2> /dev/null | tr '\n' ' ')"

# Four pure-PyTorch submissions of tests/audit/cpu_manifest.json, four verdicts.
python3 - "$tmp/manifest.json" << 'PY'
import json, sys
m = json.load(open("tests/audit/cpu_manifest.json"))
keep = ("clean.py", "cache_identity.py", "crash.py", "kb_softplus_clean.py")
m["entries"] = [e for e in m["entries"] if e["path"].endswith(keep) and "/solutions/" in e["path"]]
assert len(m["entries"]) == 4, m["entries"]
json.dump(m, open(sys.argv[1], "w"))
PY

# Submits the array of three shards and the merge, and waits for the merge
# (polled, at most 5 minutes): every task and the merge must complete.
audit_on_slurm() {
  local ids array merge merge_state="" tasks started=$SECONDS
  ids=$(SBATCH_GRES=none KAUDIT="$kaudit" KAUDIT_OUT="$tmp/out" KAUDIT_MERGE_OPTIONS="--expect" \
    scripts/slurm/submit-audit.sh 3 --device cpu --manifest "$tmp/manifest.json" 2> "$tmp/submit.err") ||
    fail "submit-audit.sh: $(cat "$tmp/submit.err")"
  read -r array merge <<< "$ids"
  [[ $array =~ ^[0-9]+$ && $merge =~ ^[0-9]+$ ]] || fail "submit-audit.sh printed '$ids', want two job ids"
  slurm_jobs=("$array" "$merge")
  scontrol show job "$merge" | grep -q "Dependency=afterany:${array}" || fail "the merge does not wait for the array (afterany)"
  for _ in $(seq 300); do
    merge_state=$(scontrol show job "$merge" -o 2> /dev/null | grep -oE 'JobState=[A-Z_]+' | cut -d= -f2)
    [[ $merge_state =~ ^(COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY)$ ]] && break
    sleep 1
  done
  echo "$1: the array and the merge took $((SECONDS - started)) s"
  [[ $merge_state == COMPLETED ]] || fail "$1: merge job $merge ended '$merge_state' (with --expect: every verdict as the manifest says)"
  tasks=$(scontrol show job "$array" -o | grep -oE 'ArrayTaskId=[0-9]+ .*JobState=[A-Z_]+' |
    sed -E 's/ArrayTaskId=([0-9]+) .*JobState=([A-Z_]+)/\1:\2/' | sort | tr '\n' ' ')
  [[ $tasks == "0:COMPLETED 1:COMPLETED 2:COMPLETED " ]] || fail "$1: array tasks '$tasks', want three COMPLETED"
  slurm_jobs=()
  grep -q "3 of 3 shard(s) merged" "$tmp/out/logs/merge.out" || fail "$1: the merge log does not say it merged three shards"
}

audit_on_slurm "first submission"
python3 - "$tmp/out" "$tmp/manifest.json" << 'PY' || fail "the merged batch"
import json, os, sys
out, manifest = sys.argv[1], sys.argv[2]
want = {e["path"].rsplit("/", 2)[-2] + "__" + os.path.basename(e["path"])[:-3]: (e["result"], e["integrity"])
        for e in json.load(open(manifest))["entries"]}
merged = json.load(open(out + "/merged/summary.json"))
got = {e["key"]: (e["result"], e["integrity"]) for e in merged["submissions"]}
assert got == want, (got, want)
assert merged["device"] == "cpu", merged["device"]
assert merged["expectations"] == {"matched": 4, "of": 4}, merged["expectations"]
assert merged["merge"]["shards"] == {"count": 3, "present": [0, 1, 2], "missing": []}, merged["merge"]["shards"]
assert merged["merge"]["missing"] == [] and merged["merge"]["conflicts"] == []
held = []
for i in range(3):
    s = json.load(open(f"{out}/shard-{i}/summary.json"))
    assert (s["shard"]["index"], s["shard"]["count"]) == (i, 3), s["shard"]
    for e in s["submissions"]:
        held.append(e["key"])
        # Verdicts unchanged, evidence carried over.
        assert got[e["key"]] == (e["result"], e["integrity"]), e
        for f in ("verdict.json", "run.json", "analysis.json"):
            a, b = f"{out}/shard-{i}/{e['key']}/{f}", f"{out}/merged/{e['key']}/{f}"
            assert open(a, "rb").read() == open(b, "rb").read(), (a, b)
assert sorted(held) == sorted(want), held
assert os.path.getsize(out + "/merged/report.html") > 0
PY

# Submitted again, the array resumes the shards' folders: nothing is run
# again (the run documents stay as they were), and the merge is made anew.
stamps() { find "$tmp/out" -path '*/shard-*/*/run.json' -printf '%P %T@\n' | sort; }
before=$(stamps)
[[ $(wc -l <<< "$before") == 4 ]] || fail "want four run.json in the shards, found: $before"
audit_on_slurm "second submission"
[[ $(stamps) == "$before" ]] || fail "the second submission ran submissions again instead of resuming"
echo "slurm array test passed"
