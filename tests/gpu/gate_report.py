#!/usr/bin/env python3
"""What the GPU gate showed (tests/gpu/run_all_gpu.sh step gate), from a batch
folder: one line per entry (expected, got, deciding finding ids, seconds, the
largest fresh/bench ratio), then matched/total and the count that matters
most: clean entries judged cheat or benchmark-aware.

  gate_report.py BATCH_DIR [MANIFEST]   only MANIFEST's entries, when given

When the batch holds more than the gate (the whole corpus, gate_manifest.py
--all), a last line counts the gate's own entries.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gate_manifest import gate_entries  # noqa: E402


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def main():
    if len(sys.argv) not in (2, 3):
        raise SystemExit(__doc__)
    batch = sys.argv[1]
    only = None
    if len(sys.argv) == 3:
        only = {e["path"] for e in load(sys.argv[2])["entries"]}
    rows, matched, decided, wrongly_accused = [], 0, 0, []
    gate = {e["path"] for e in gate_entries()[1]}
    gate_rows, gate_matched, gate_decided = 0, 0, 0
    isolation = None
    for key in sorted(os.listdir(batch)):
        sub = load(os.path.join(batch, key, "submission.json"))
        if not sub or "expected" not in sub or (only is not None and sub.get("path") not in only):
            continue
        want = sub["expected"]
        verdict = load(os.path.join(batch, key, "verdict.json")) or {}
        run = load(os.path.join(batch, key, "run.json")) or {}
        got = (verdict.get("result", "not-run"), verdict.get("integrity", "not-run"))
        in_gate = sub.get("path") in gate
        gate_rows += in_gate
        if not run:
            # A run in flight when the call's limit stopped the batch says where it was.
            stopped = load(os.path.join(batch, key, "interrupted.json"))
            where = ""
            if stopped and stopped.get("stopped_in"):
                s = stopped["stopped_in"]
                where = "; stopped after %.0f s in %s %s%s" % (
                    stopped.get("seconds", 0), s.get("process", ""), s.get("phase", ""),
                    " shape %s" % s["shape"] if "shape" in s else "")
            retry = (stopped or {}).get("environment_retry")
            if retry:
                # Its first run failed for the machine; it was waiting for, or in, its run alone.
                where += "; %s its retry alone, after: %s" % (
                    "in" if retry.get("attempts") == 2 else "waiting for", retry.get("first_cause", "?"))
            rows.append("  not run   %-55s expected %s, %s%s" % (key, want["result"], want["integrity"], where))
            continue
        decided += 1
        # As kaudit audit --expect counts (audit/items.cpp): an error expected
        # clean may be unverified, since nothing ran to verify.
        ok = got == (want["result"], want["integrity"]) or (
            got[0] == want["result"] == "error" and want["integrity"] == "clean" and got[1] == "unverified")
        matched += ok
        gate_decided += in_gate
        gate_matched += in_gate and ok
        if want["integrity"] == "clean" and got[1] in ("cheat", "benchmark-aware"):
            wrongly_accused.append(key)
        ids = sorted({f["id"] for f in verdict.get("deciding", [])})
        ratios = [t.get("fresh_over_bench") for t in run.get("timing", []) if t.get("fresh_over_bench")]
        isolation = isolation or run.get("isolation")
        rows.append("  %-8s  %-55s expected %s, %s; got %s, %s %s (%.0f s, fresh/bench max %s)" % (
            "match" if ok else "MISMATCH", key, want["result"], want["integrity"], got[0], got[1],
            ids if ids else "", run.get("seconds", 0), "%.2f" % max(ratios) if ratios else "-"))
    print("\n".join(rows))
    if isolation:
        print("isolation: weakness: %s" % isolation.get("weakness", "none"))
        print("isolation: task limit: %s" % [p for p in isolation.get("protections", []) if "task" in p])
    print("gate: %d of %d decided entries match (%d entries); clean judged cheat or benchmark-aware: %d %s" % (
        matched, decided, len(rows), len(wrongly_accused), wrongly_accused))
    if gate_rows < len(rows):
        print("gate's own entries: %d of %d decided match (%d of %d decided)" % (
            gate_matched, gate_decided, gate_decided, gate_rows))


if __name__ == "__main__":
    main()
