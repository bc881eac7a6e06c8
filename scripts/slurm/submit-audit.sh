#!/usr/bin/env bash
# Submits a kaudit audit as a Slurm job array of N shards, one GPU a task
# (audit-array.sbatch), and the merge as a job that waits for the whole
# array (audit-merge.sbatch, --dependency=afterany). docs/scale-out.md.
#
#   scripts/slurm/submit-audit.sh N AUDIT_ARGS...
#   e.g. KAUDIT_OUT=/shared/batch scripts/slurm/submit-audit.sh 8 --manifest kernels/corpus/manifest.json
#
# Prints "ARRAY_JOB_ID MERGE_JOB_ID" on stdout. Run it from the folder the
# submissions' paths are relative to, on a filesystem every node sees.
# Environment:
#   KAUDIT                 the kaudit binary (default: kaudit on PATH, else ./build/kaudit)
#   KAUDIT_OUT             the shards go to KAUDIT_OUT/shard-I, the merge to KAUDIT_OUT/merged,
#                          the jobs' logs to KAUDIT_OUT/logs (default kaudit-audit.shards)
#   KAUDIT_SBATCH_OPTIONS  more sbatch options for both jobs, e.g. "--partition=gpu --cpus-per-task=8"
#   KAUDIT_MERGE_OPTIONS   kaudit merge flags, e.g. "--fail-on cheat --allow-missing"
# sbatch's own variables work too (SBATCH_PARTITION, SBATCH_GRES=none on a
# cluster without GPUs, with --device cpu among the audit arguments).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
usage() { echo "usage: $0 N AUDIT_ARGS...   (N shards, N >= 1)" >&2; exit 2; }
(($# >= 2)) || usage
n=$1
shift
[[ $n =~ ^[1-9][0-9]*$ ]] || usage

kaudit=${KAUDIT:-$(command -v kaudit || echo ./build/kaudit)}
[[ -x $kaudit ]] || { echo "submit-audit: no kaudit binary at '$kaudit' (set KAUDIT)" >&2; exit 2; }
export KAUDIT=$(cd "$(dirname "$kaudit")" && pwd)/$(basename "$kaudit")
export KAUDIT_OUT=${KAUDIT_OUT:-kaudit-audit.shards}
export KAUDIT_SHARDS=$n
mkdir -p "$KAUDIT_OUT/logs"
read -r -a extra <<<"${KAUDIT_SBATCH_OPTIONS:-}"
read -r -a merge_flags <<<"${KAUDIT_MERGE_OPTIONS:-}"

array=$(sbatch --parsable "${extra[@]}" --array="0-$((n - 1))" --output="$KAUDIT_OUT/logs/shard-%a.out" \
  "$here/audit-array.sbatch" "$@")
array=${array%%;*}  # "ID;cluster" on a multi-cluster setup
merge=$(sbatch --parsable "${extra[@]}" --dependency="afterany:$array" --output="$KAUDIT_OUT/logs/merge.out" \
  "$here/audit-merge.sbatch" "${merge_flags[@]}")
merge=${merge%%;*}
echo "submit-audit: array job $array ($n shards into $KAUDIT_OUT/shard-I), merge job $merge into $KAUDIT_OUT/merged" >&2
echo "$array $merge"
