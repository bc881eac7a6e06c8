#!/usr/bin/env bash
# The attack suite of issue 14: every hostile submission of
# tests/attacks/manifest.json audited on the CPU by itself, in a temporary
# copy of the binary, harness and problems, with a wall-clock limit; then the
# checks of tests/attacks/tools/run_attacks.py (kaudit survives, no attack is
# judged correct and clean, the expected ids are there, nothing outside the
# batch changes, no process outlives kaudit, the fake secret stays out of the
# batch). One line per attack and a summary; exit 1 on any failure not
# marked known_gap, 77 (skipped) without /usr/bin/python3 and torch.
#
#   tests/attacks/run_attacks.sh KAUDIT ROOT [ATTACK_NAME...]
set -uo pipefail
if [[ $# -lt 2 ]]; then
  echo "usage: $0 KAUDIT ROOT [ATTACK_NAME...]" >&2
  exit 2
fi
kaudit="$1"
root="$2"
shift 2
exec python3 "$root/tests/attacks/tools/run_attacks.py" "$kaudit" "$root" "$@"
