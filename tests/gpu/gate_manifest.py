#!/usr/bin/env python3
"""The GPU gate's entries (issue 26): every correct and clean corpus entry,
the honest set (kernels/corpus/*/honest_*.py), and a fixed stratified set of
cheats and benchmark-aware entries, one or more per class, in that order (the
clean ones first: a clean kernel judged cheat is the worst outcome).

  gate_manifest.py OUT.json        writes the subset of kernels/corpus/manifest.json
  gate_manifest.py --list          prints the paths

Grow CHEATS as audits get faster (issue 27); the gate must stay within one
GPU call (tests/gpu/run_all_gpu.sh step gate).
"""
import json
import os
import sys

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# One or more per class of offence, each a class the H200 decides at run time.
CHEATS = [
    "fp8_gemm/cheat_scaled_mm_padded.py",         # a library does the work (banned kernels ran)
    "fp8_gemm/cheat_fallback_unaligned_k.py",     # fallback to a banned op at an unaligned shape
    "topk/cheat_cache_data_ptr.py",               # output cached on identity
    "paged_attention/aware_graph_keyed_on_ptr.py",  # CUDA graph keyed on input addresses (fresh 20x)
    "w4a16_gemm/cheat_side_stream.py",            # work hidden from the timer on a side stream
    "moe_swiglu/cheat_patch_event_timer.py",      # the harness's timer patched
    "moe_swiglu/aware_reused_output.py",          # one output buffer returned every call
    "kda_chunked/cheat_skip_after_warmup.py",     # work skipped after the first calls
    "topk/aware_timing_in_timed_calls.py",        # self-timing inside timed calls
    "w4a16_gemm/cheat_fingerprint_memo.py",       # work skipped on repeated inputs, seen in the trace (not yet run)
]


def gate_entries():
    with open(os.path.join(REPO, "kernels", "corpus", "manifest.json")) as f:
        manifest = json.load(f)
    entries = manifest["entries"]
    by_path = {e["path"].replace("kernels/corpus/", ""): e for e in entries}
    clean = [e for e in entries if e["integrity"] == "clean" and e["result"] == "correct"]
    missing = [c for c in CHEATS if c not in by_path]
    if missing:
        raise SystemExit("gate_manifest.py: not in the manifest: " + ", ".join(missing))
    return manifest, clean + [by_path[c] for c in CHEATS]


def main():
    manifest, entries = gate_entries()
    if len(sys.argv) == 2 and sys.argv[1] == "--list":
        print("\n".join(e["path"] for e in entries))
        return
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    with open(sys.argv[1], "w") as f:
        json.dump(dict(manifest, entries=entries), f, indent=2)
        f.write("\n")
    print("gate: %d entries (%d clean, %d others)" % (len(entries), len(entries) - len(CHEATS), len(CHEATS)))


if __name__ == "__main__":
    main()
