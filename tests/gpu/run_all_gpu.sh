#!/usr/bin/env bash
# One call on the GPU machine, several checks, one file back: runs the steps
# named in KAUDIT_GPU_STEPS (default "runner corpus"; also "tracer",
# "tracer-quick", "tracer-overhead", "isolation-cost", "attacks", "input-probes", "grader-compare", "gate", "hang", "reference-trace-cost") within KAUDIT_GPU_CALL_S seconds (default 570), then packs
# everything under $OUT into $OUT/all.tgz, because a call brings back 8 files
# at most. The summary lines go to stdout (the call's output tail).
#
#   KAUDIT_GPU_STEPS="tracer-quick runner corpus" bash tests/gpu/run_all_gpu.sh
#
# Carry .device-deps always, and gpu-batch (the static corpus batch) only in
# a session's first call: a carried folder replaces the warm machine's, and
# with it the corpus audit's progress (CONTRIBUTING.md).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
export OUT TMPDIR=${TMPDIR:-/dev/shm}
# The machine has no bubblewrap of its own: use the one carried in .device-deps.
[[ -z ${KAUDIT_BWRAP:-} && -x .device-deps/bin/bwrap ]] && export KAUDIT_BWRAP=$PWD/.device-deps/bin/bwrap
start=$(date +%s)
left() { echo $(( ${KAUDIT_GPU_CALL_S:-570} - ($(date +%s) - start) )); }
for step in ${KAUDIT_GPU_STEPS:-runner corpus}; do
  case $step in
    tracer) timeout "$(left)" bash tests/gpu/run_tracer_gpu.sh >/dev/null 2>&1
            echo "tracer: exit $? at $(( $(date +%s) - start )) s"
            grep -E "^\[ +(OK|FAILED) +\]|all tracer|FAILED:" "$OUT/tracer_gpu.log" | tail -12 ;;
    tracer-overhead) KAUDIT_GPU_OVERHEAD_ONLY=1 timeout "$(left)" bash tests/gpu/run_tracer_gpu.sh >/dev/null 2>&1
            echo "tracer (overhead only): exit $? at $(( $(date +%s) - start )) s"
            cat "$OUT/cupti_floor.jsonl" 2>/dev/null
            python3 -c "import json; s=json.load(open('$OUT/overhead_summary.json')); print({m: round(v['added_us_per_launch'], 2) for m, v in s['modes'].items()})" 2>/dev/null ;;
    tracer-quick) KAUDIT_GPU_QUICK=1 timeout "$(left)" bash tests/gpu/run_tracer_gpu.sh >/dev/null 2>&1
            echo "tracer (quick): exit $? at $(( $(date +%s) - start )) s"
            grep -E "^\[ +(OK|FAILED) +\]|all tracer|FAILED:" "$OUT/tracer_gpu.log" | tail -12 ;;
    runner) KAUDIT_RUNNER_PART=${KAUDIT_RUNNER_PART:-topk} timeout "$(left)" bash tests/gpu/run_runner_gpu.sh >/dev/null 2>&1
            echo "runner: exit $? at $(( $(date +%s) - start )) s"
            grep -E "PASS|FAIL|built" "$OUT/runner_gpu.log" ;;
    input-probes) KAUDIT_RUNNER_PART=probes KAUDIT_GPU_BUDGET_S=${KAUDIT_GPU_BUDGET_S:-$(( $(left) - 60 ))} \
              timeout "$(left)" bash tests/gpu/run_runner_gpu.sh >/dev/null 2>&1
            echo "input-probes: exit $? at $(( $(date +%s) - start )) s"
            grep -E "PASS|FAIL|built|input probes:|distributions:" "$OUT/runner_gpu.log" | cut -c1-400 ;;
    corpus) KAUDIT_CORPUS_BUDGET_S=$(( $(left) - 20 )) bash tests/gpu/run_corpus_gpu.sh >/dev/null 2>&1
            echo "corpus: exit $? at $(( $(date +%s) - start )) s"
            grep "^\[" "$OUT/corpus/audit.log" ;;
    attacks) KAUDIT_ATTACKS_DEVICE=cuda KAUDIT_ATTACKS_PYTHON=$(command -v python3) timeout "$(left)" \
              bash tests/attacks/run_attacks.sh build-gpu/kaudit . >"$OUT/attacks.log" 2>&1
            echo "attacks: exit $? at $(( $(date +%s) - start )) s"
            grep -E "^(PASS|FAIL|KNOWN|SKIP)|attack\(s\)" "$OUT/attacks.log" | cut -c1-220 ;;
    gate) # issue 26's gate: every clean entry, the honest set and a stratified set of cheats
          # (tests/gpu/gate_manifest.py), audited as a user would; prints matched/total. Carry
          # gpu-batch made by `kaudit audit --device none --manifest gate-manifest.json -o gpu-batch`
          # (or with corpus-manifest.json from `gate_manifest.py --all`: the whole corpus in one
          # batch, the gate's entries first, which resumed calls with KAUDIT_GATE_MANIFEST finish).
          [[ -x build-gpu/kaudit ]] || KAUDIT_RUNNER_PART=none timeout "$(left)" bash tests/gpu/run_runner_gpu.sh >/dev/null 2>&1
          echo "gate: built at $(( $(date +%s) - start )) s"
          grep -E "PASS|FAIL|built|FAILED|tests? (skipped|passed)|task limit|cgroup:" "$OUT/runner_gpu.log" 2>/dev/null | tail -16
          # KAUDIT_GATE_MANIFEST: another subset instead (the rest of the corpus, say).
          [[ -n ${KAUDIT_GATE_MANIFEST:-} ]] || python3 tests/gpu/gate_manifest.py gate-manifest.json
          KAUDIT_CORPUS_MANIFEST=${KAUDIT_GATE_MANIFEST:-gate-manifest.json} KAUDIT_CORPUS_JOBS=${KAUDIT_CORPUS_JOBS:-6} \
            KAUDIT_CORPUS_BUDGET_S=$(( $(left) - 30 )) bash tests/gpu/run_corpus_gpu.sh >/dev/null 2>&1
          echo "gate: exit $? at $(( $(date +%s) - start )) s"
          python3 tests/gpu/gate_report.py gpu-batch "${KAUDIT_GATE_MANIFEST:-gate-manifest.json}" | tee "$OUT/gate.txt" ;;
    grader-compare) [[ -x build-gpu/kaudit ]] || KAUDIT_RUNNER_PART=none timeout "$(left)" bash tests/gpu/run_runner_gpu.sh >/dev/null 2>&1
            timeout "$(left)" bash tests/gpu/grader_compare.sh >"$OUT/grader_compare.log" 2>&1
            echo "grader-compare: exit $? at $(( $(date +%s) - start )) s"
            tail -4 "$OUT/grader_compare.log" ;;
    hang) # a kernel that never ends, alone, with the process table beside it (tests/gpu/hang_gpu.sh)
          [[ -x build-gpu/kaudit ]] || KAUDIT_RUNNER_PART=none timeout "$(left)" bash tests/gpu/run_runner_gpu.sh >/dev/null 2>&1
          cap=${KAUDIT_HANG_S:-240}; KAUDIT_HANG_S=$(( $(left) - 20 < cap ? $(left) - 20 : cap )) bash tests/gpu/hang_gpu.sh ;;
    isolation-cost) timeout "$(left)" bash tests/gpu/isolation_cost_gpu.sh >"$OUT/isolation_cost.log" 2>&1
            echo "isolation-cost: exit $? at $(( $(date +%s) - start )) s"
            cat "$OUT/isolation_cost.log" | tail -8 ;;
    reference-trace-cost) [[ -x build-gpu/kaudit ]] || KAUDIT_RUNNER_PART=none timeout "$(left)" bash tests/gpu/run_runner_gpu.sh >/dev/null 2>&1
            timeout "$(left)" bash tests/gpu/reference_trace_cost.sh >"$OUT/reference_trace_cost.log" 2>&1
            echo "reference-trace-cost: exit $? at $(( $(date +%s) - start )) s"
            cat "$OUT/reference_trace_cost.log" ;;
    *) echo "unknown step $step (tracer, tracer-quick, tracer-overhead, runner, corpus, isolation-cost, attacks, input-probes, grader-compare, gate, hang, reference-trace-cost)" ;;
  esac
done
# Everything back as one file.
(cd "$OUT" && tar czf /tmp/kaudit-gpu-all.tgz . && rm -rf "${OUT:?}"/* && mv /tmp/kaudit-gpu-all.tgz "$OUT/all.tgz")
echo "packed into \$OUT/all.tgz at $(( $(date +%s) - start )) s"
