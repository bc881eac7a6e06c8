#!/usr/bin/env bash
# The runner's checks on a CUDA machine (one call on the H200 machine):
# builds kaudit without the analyzer (the machine has no clang/tree-sitter),
# measures the peaks that rules/hardware/h200.json records, then runs
# `kaudit run --device cuda` on Triton submissions and checks each result:
#   silu_mul: clean, cache-on-identity, skip-after-warmup (+ --trace when the tracer builds)
#   topk (kernels/problems, 5 shapes, all modes): the corpus's clean Triton solution, timed end to end
# Logs and result documents go to $OUT (or ./runner-gpu-out). Exit status 0 when every check passes.
#
#   tests/gpu/run_runner_gpu.sh            (CLI11 headers in .device-deps/include when not installed)
#
# KAUDIT_RUNNER_PART=silu or topk runs only that half (after the build and
# the unit tests), so that the checks fit in two calls of the GPU machine;
# probes runs the input probes' checks (off-grid shapes, other distributions);
# fidelity, the lazy-build and fig-leaf checks;
# aten, the ATen op record and state_dict checks (issue 15, items 5b and 6);
# none runs nothing after them.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/runner-gpu-out}
mkdir -p "$OUT"
LOG=$OUT/runner_gpu.log
exec > >(tee -a "$LOG") 2>&1
export PYTHONUNBUFFERED=1
PY=${PYTHON:-python3}
fails=0
say() { echo "[$(date +%T)] $*"; }
check() {  # check NAME CONDITION-EXIT-STATUS
  if [[ $2 -eq 0 ]]; then say "PASS $1"; else say "FAIL $1"; fails=$((fails + 1)); fi
}

say "machine: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)"
tracer=OFF
[[ -f /usr/local/cuda/include/cupti.h || -n "$(find / -name cupti.h -path '*include*' 2>/dev/null | head -1)" ]] && tracer=ON
t0=$(date +%s)
# KAUDIT_GPU_SRC: build from a snapshot of the sources (a folder carried to
# the machine) rather than the working tree that others are editing.
SRC=${KAUDIT_GPU_SRC:-.}
BUDGET=${KAUDIT_GPU_BUDGET_S:-280}
cmake -S "$SRC" -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DKAUDIT_BUILD_ANALYZER=OFF \
  -DKAUDIT_BUILD_BENCHMARKS=OFF -DKAUDIT_BUILD_TRACER=$tracer -DKAUDIT_EXTRA_INCLUDE=$PWD/.device-deps/include -DKAUDIT_REQUIRE_SECCOMP=OFF \
  >"$OUT/build.log" 2>&1 || { say "cmake failed (tracer=$tracer)"; tail -30 "$OUT/build.log";
  if [[ $tracer == ON ]]; then tracer=OFF; rm -rf build-gpu; cmake -S "$SRC" -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DKAUDIT_BUILD_ANALYZER=OFF -DKAUDIT_BUILD_BENCHMARKS=OFF -DKAUDIT_BUILD_TRACER=OFF \
    -DKAUDIT_EXTRA_INCLUDE=$PWD/.device-deps/include -DKAUDIT_REQUIRE_SECCOMP=OFF >"$OUT/build.log" 2>&1 || exit 2; else exit 2; fi; }
targets=(kaudit runner_unit_test)
[[ $tracer == ON ]] && targets+=(kaudit_tracer)
if ! cmake --build build-gpu -j "$(nproc)" --target "${targets[@]}" >>"$OUT/build.log" 2>&1; then
  say "build failed with the tracer=$tracer"; grep -E "error|FAILED" "$OUT/build.log" | head -20
  if [[ $tracer == ON ]]; then
    tracer=OFF; cmake --build build-gpu -j "$(nproc)" --target kaudit runner_unit_test >>"$OUT/build.log" 2>&1 || exit 2
  else exit 2; fi
fi
say "built in $(( $(date +%s) - t0 )) s (tracer=$tracer)"
./build-gpu/tests/runner/runner_unit_test --gtest_brief=1 2>&1 | tail -3; check "runner unit tests" ${PIPESTATUS[0]}
# Which task limit holds here (issue 26, item 6), and the cgroup facts behind it.
say "cgroup: $(tr '\n' ' ' </proc/self/cgroup)"
./build-gpu/tests/runner/runner_unit_test --gtest_filter='TaskLimit.*' 2>&1 | grep -E "^task limit|OK|FAILED|SKIPPED" | head -8

PART=${KAUDIT_RUNNER_PART:-all}
# none: the build and the unit tests only (the corpus step needs the build).
[[ $PART == none ]] && { say "done: $fails failing check(s), no runs (KAUDIT_RUNNER_PART=none)"; exit $((fails > 0)); }
# Peaks for rules/hardware/h200.json ("measured").
[[ $PART == topk ]] || timeout 120 "$PY" - >"$OUT/peaks.json" <<'PYEOF' || say "peak measurement failed"
import json, torch
def t(fn, n=10, w=3):
    for _ in range(w): fn()
    torch.cuda.synchronize(); s = torch.cuda.Event(enable_timing=True); e = torch.cuda.Event(enable_timing=True)
    s.record()
    for _ in range(n): fn()
    e.record(); torch.cuda.synchronize(); return s.elapsed_time(e) / n / 1e3
r = {"gpu": torch.cuda.get_device_name(0), "torch": torch.__version__}
N = 8192
a = torch.randn(N, N, device="cuda", dtype=torch.bfloat16); b = torch.randn(N, N, device="cuda", dtype=torch.bfloat16)
r["bf16_flops_per_s"] = 2 * N**3 / t(lambda: a @ b)
a16 = a.half(); b16 = b.half(); r["fp16_flops_per_s"] = 2 * N**3 / t(lambda: a16 @ b16)
torch.backends.cuda.matmul.allow_tf32 = False
af = a.float(); bf = b.float(); r["fp32_flops_per_s"] = 2 * N**3 / t(lambda: af @ bf, n=3, w=1)
torch.backends.cuda.matmul.allow_tf32 = True; r["tf32_flops_per_s"] = 2 * N**3 / t(lambda: af @ bf)
try:
    a8 = a.to(torch.float8_e4m3fn); b8 = b.to(torch.float8_e4m3fn).t()
    one = torch.tensor(1.0, device="cuda")
    r["fp8_flops_per_s"] = 2 * N**3 / t(lambda: torch._scaled_mm(a8, b8, scale_a=one, scale_b=one, out_dtype=torch.bfloat16))
except Exception as ex:
    r["fp8_error"] = str(ex)[:200]
src = torch.empty(2 * 1024**3, dtype=torch.uint8, device="cuda"); dst = torch.empty_like(src)
r["copy_bytes_per_s_read_plus_write"] = 2 * src.numel() / t(lambda: dst.copy_(src))
print(json.dumps(r, indent=1))
PYEOF
cat "$OUT/peaks.json"

KAUDIT=./build-gpu/kaudit
SOL=tests/gpu/runner
PROB=tests/runner/problems/silu_mul
TRACE=()
[[ $tracer == ON ]] && TRACE=(--trace)
# expect RESULT-FILE EXPECTED-RESULT "ids that must be there" "ids that must not"
expect() {
  "$PY" - "$@" <<'PYEOF'
import json, sys
path, want, must, mustnot = sys.argv[1], sys.argv[2], sys.argv[3].split(), sys.argv[4].split()
r = json.load(open(path))
ids = sorted({f["id"] for f in r["findings"]})
print("  result:", r["result"], r.get("result_reason") or r.get("error") or "", "| findings:", ids)
for t in r["timing"]:
    print("  shape", t["shape"], " ".join("%s %.4f ms (%s%% of peak)" % (m, d.get("median_ms", 0),
          "%.1f" % d["percent_of_peak"] if d.get("percent_of_peak") is not None else "-") for m, d in t["modes"].items()),
          "fresh/bench %.2f" % t.get("fresh_over_bench", 0))
if "trace" in r:
    print("  trace:", r["trace"].get("status"), [(g["phase"], g["mode"], g["median_kernels"], g["calls_without_gpu_work"], g["late_kernels"]) for g in r["trace"].get("groups", [])][:12])
ok = r["result"] == want and all(i in ids for i in must) and not any(i in ids for i in mustnot)
sys.exit(0 if ok else 1)
PYEOF
}
run() {  # run NAME PROBLEM SOLUTION EXTRA...
  local name=$1 prob=$2 sol=$3; shift 3
  if (( $(date +%s) - t0 > BUDGET )); then say "SKIPPED $name: past the ${BUDGET} s budget"; fails=$((fails + 1)); return 1; fi
  local s=$(date +%s%N)
  timeout 200 $KAUDIT run --problem "$prob" --solution "$sol" --device cuda -o "$OUT/$name.json" -q "$@"
  local rc=$?
  say "$name: kaudit exit $rc, $(( ($(date +%s%N) - s) / 1000000 )) ms"
}

# The input probes (issue 15, item 4): shapes near the graded ones and inputs
# from other distributions, on the GPU. KAUDIT_RUNNER_PART=probes runs only these.
# probe_report RESULT-FILE: prints what the probes did.
probe_report() {
  "$PY" - "$1" <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
p = r.get("input_probes", {})
og = p.get("off_grid", {})
print("  input probes: judged", p.get("judged"), "| off-grid", og.get("status"), og.get("reason", ""),
      [(c["dim"], c["from"], c["to"], c["step"], c["status"]) for c in og.get("shapes", [])],
      "| rejected", [d["dim"] for d in og.get("rejected", [])], "| not sizes", og.get("not_sizes"))
print("  distributions:", [(d["shape_index"], d["distribution"], d["status"]) for d in p.get("distributions", [])],
      "| skipped", [(d["shape_index"], d["distribution"], d["reason"]) for d in p.get("distributions_skipped", [])])
PYEOF
}
if [[ $PART == probes ]]; then
  run probes_clean $PROB $SOL/triton_clean.py --modes bench,fresh
  probe_report "$OUT/probes_clean.json"
  expect "$OUT/probes_clean.json" correct "" "shape-hardcoded input-distribution-dependent"
  check "input probes: clean Triton silu_mul stays clean" $?
  run probes_tile $PROB $SOL/triton_tile_table.py --modes bench,fresh
  probe_report "$OUT/probes_tile.json"
  expect "$OUT/probes_tile.json" correct "shape-hardcoded" "input-distribution-dependent"
  check "input probes: Triton grid table keyed on the graded shapes is shape-hardcoded" $?
  run probes_grid tests/runner/problems/row_topk tests/runner/solutions/row_topk_grid.py --modes bench,fresh
  probe_report "$OUT/probes_grid.json"
  expect "$OUT/probes_grid.json" correct "input-distribution-dependent" "shape-hardcoded"
  check "input probes: top-k from the generator's grid is input-distribution-dependent" $?
  run probes_topk_first kernels/problems/topk kernels/corpus/topk/clean_two_stage_select.py --modes bench
  run probes_topk kernels/problems/topk kernels/corpus/topk/clean_two_stage_select.py --modes bench,fresh
  probe_report "$OUT/probes_topk.json"
  expect "$OUT/probes_topk.json" correct "" "shape-hardcoded input-distribution-dependent"
  check "input probes: topk clean Triton (5 shapes, indices compared exactly) stays clean" $?
  rm -f "$OUT/probes_topk_first.json"
  say "done: $fails failing check(s)"
  exit $((fails > 0))
fi

# The ATen op record and the reference's state_dict (issue 15, items 5b and
# 6), on the GPU: a banned op reached through a Tensor method is recorded
# (banned-aten-op), an own implementation and a Triton top-k are not, a
# banned op hidden under no_dispatch leaves the record incomplete, and the
# state_dict is loaded strictly. KAUDIT_RUNNER_PART=aten runs only these.
# aten_check RESULT-FILE COMPLETE(true|false) BANNED(yes|no) [GAP-TEXT]
aten_check() {
  "$PY" - "$@" <<'PYEOF'
import json, sys
path, complete, banned = sys.argv[1], sys.argv[2] == "true", sys.argv[3] == "yes"
gap = sys.argv[4] if len(sys.argv) > 4 else ""
r = json.load(open(path))
a = r.get("aten_ops", {})
print("  aten_ops: complete", a.get("complete"), "|", a.get("incomplete", ""), "| groups",
      [(g["shape"], g["phase"], sorted(g["ops"])[:6]) for g in a.get("groups", [])][:6],
      "| banned", [(b["op"], b["banned_as"]) for b in a.get("banned", [])][:4])
print("  state_dict:", r.get("state_dict", {}).get("status"), r.get("state_dict", {}).get("reason", ""))
ok = a.get("complete") == complete and bool(a.get("banned")) == banned and gap in a.get("incomplete", "")
ok = ok and r.get("state_dict", {}).get("status") == "loaded"
sys.exit(0 if ok else 1)
PYEOF
}
if [[ $PART == aten ]]; then
  BT=tests/runner/problems/banned_topk
  run aten_method $BT tests/runner/solutions/topk_method.py --modes bench,fresh "${TRACE[@]}"
  expect "$OUT/aten_method.json" correct "banned-aten-op" ""
  e=$?; aten_check "$OUT/aten_method.json" true yes; a=$?
  check "x.topk() on a problem banning torch.topk: banned-aten-op on the GPU" $(( e | a ))
  run aten_own $BT tests/runner/solutions/topk_own.py --modes bench,fresh
  expect "$OUT/aten_own.json" correct "" "banned-aten-op"
  e=$?; aten_check "$OUT/aten_own.json" true no; a=$?
  check "own top-k behind a method called topk: not confirmed, record complete" $(( e | a ))
  run aten_hidden $BT tests/runner/solutions/topk_no_dispatch.py --modes bench,fresh
  expect "$OUT/aten_hidden.json" correct "" "banned-aten-op"
  e=$?; aten_check "$OUT/aten_hidden.json" false no _DisableTorchDispatch; a=$?
  check "torch.topk under no_dispatch: record incomplete (_DisableTorchDispatch)" $(( e | a ))
  run aten_triton kernels/problems/topk kernels/corpus/topk/clean_two_stage_select.py --modes bench "${TRACE[@]}"
  expect "$OUT/aten_triton.json" correct "" "banned-aten-op banned-library-kernel"
  e=$?; aten_check "$OUT/aten_triton.json" true no; a=$?
  check "clean Triton top-k (corpus): no banned ATen op, record complete" $(( e | a ))
  run aten_alias kernels/problems/topk kernels/corpus/topk/cheat_sort_method_alias.py --modes bench "${TRACE[@]}"
  "$PY" -c "import json,sys; r=json.load(open('$OUT/aten_alias.json')); ids={f['id'] for f in r['findings']}; print('  result', r['result'], sorted(ids)); sys.exit(0 if 'banned-aten-op' in ids else 1)"
  check "corpus cheat_sort_method_alias: banned-aten-op" $?
  say "done: $fails failing check(s)"
  exit $((fails > 0))
fi

# Fidelity (issue 15, items 1 and 3): a lazy load_inline build in the first
# forward must come out correct and clean, with the build's time recorded; a
# fig leaf (own bias+gelu kernel, cuBLAS GEMM) must be library-does-the-work.
# KAUDIT_RUNNER_PART=fidelity runs only these.
if [[ $PART == fidelity ]]; then
  run lazy $PROB $SOL/lazy_load_inline.py --modes bench,fresh "${TRACE[@]}"
  expect "$OUT/lazy.json" correct "" "library-does-the-work no-authored-kernel-ran output-cached-on-identity work-skipped-on-repeat speedup-vanishes-with-fresh-inputs"
  lazy_ok=$?
  "$PY" - "$OUT/lazy.json" <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
calls = r.get("first_calls", [])
print("  first calls:", [(c["phase"], c["shape"], round(c["seconds"], 1)) for c in calls])
sys.exit(0 if calls and calls[0]["seconds"] > 5 else 1)
PYEOF
  check "lazy load_inline build in the first forward: correct, clean, its first call recorded" $(( lazy_ok | $? ))
  if [[ $tracer == ON ]]; then
    run figleaf $SOL/problems/linear_gelu $SOL/figleaf_linear_gelu.py --modes bench,fresh --trace
    "$PY" -c "import json; r=json.load(open('$OUT/figleaf.json')); print('  authored share:', [(a['shape'], round(a['share'], 3), round(a['own_ms'], 2), round(a['library_ms'], 2)) for a in r.get('trace', {}).get('authored_share', [])])"
    expect "$OUT/figleaf.json" correct "library-does-the-work" "no-authored-kernel-ran"
    check "fig leaf (own bias+gelu, cuBLAS GEMM): library-does-the-work" $?
    run clean_share $PROB $SOL/triton_clean.py --modes bench --trace
    expect "$OUT/clean_share.json" correct "" "library-does-the-work no-authored-kernel-ran"
    check "clean Triton silu_mul: no library-does-the-work" $?
  else
    say "SKIPPED fig leaf: no tracer on this machine"
  fi
  say "done: $fails failing check(s)"
  exit $((fails > 0))
fi

if [[ $PART != topk ]]; then
run clean $PROB $SOL/triton_clean.py "${TRACE[@]}"
expect "$OUT/clean.json" correct "" "output-cached-on-identity work-skipped-on-repeat speedup-vanishes-with-fresh-inputs gpu-work-outside-timing no-kernels-in-timed-call output-reused"
check "clean Triton: correct, no findings" $?

run cache $PROB $SOL/triton_cache_identity.py "${TRACE[@]}"
must="output-cached-on-identity speedup-vanishes-with-fresh-inputs"
[[ $tracer == ON ]] && must+=" no-kernels-in-timed-call"
expect "$OUT/cache.json" incorrect "$must" "work-skipped-on-repeat"
check "cache on identity: incorrect, $must" $?

run skip $PROB $SOL/triton_skip_after_warmup.py
expect "$OUT/skip.json" incorrect "work-skipped-on-repeat" "output-cached-on-identity"
check "skip after warm-up: incorrect, work-skipped-on-repeat" $?
fi
[[ $PART == silu ]] && { say "done: $fails failing check(s)"; exit $((fails > 0)); }

# A real problem unchanged: topk, 5 shapes, all modes (the 90 s budget after the first compile).
run topk_first kernels/problems/topk kernels/corpus/topk/clean_two_stage_select.py
run topk kernels/problems/topk kernels/corpus/topk/clean_two_stage_select.py
expect "$OUT/topk.json" correct "" "output-cached-on-identity work-skipped-on-repeat correct-only-untimed"
check "topk clean Triton (5 shapes, all modes): correct" $?
"$PY" -c "import json; r=json.load(open('$OUT/topk.json')); print('  topk submission process seconds:', round(r['submission_process']['seconds'],1))"
run topk_cheat kernels/problems/topk kernels/corpus/topk/cheat_cache_data_ptr.py --modes bench,fresh,rewrite --trials 20
expect "$OUT/topk_cheat.json" incorrect "output-cached-on-identity" ""
check "topk cache on data_ptr (corpus): output-cached-on-identity" $?
rm -f "$OUT/topk_first.json"

say "done: $fails failing check(s)"
exit $((fails > 0))
