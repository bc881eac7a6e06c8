#!/usr/bin/env python3
"""tests/gpu/gate_manifest.py's order (no GPU needed): the longest runs first,
and, in the schedule six jobs follow taking the entries in order, never more
than two runs of the costliest problem at once, even where its runs outlast
the next six entries (session 17: four MoE runs overlapped and two stalled);
and the gate holds every correct clean corpus entry and every named cheat."""
import importlib.util
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("gate_manifest", os.path.join(here, "gate_manifest.py"))
gate = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gate)


def most_at_once(entries, seconds, problem, jobs=6):
    """The most runs of `problem` running together when `jobs` workers take
    the entries in order, each run taking its seconds."""
    running, now, worst = [], 0.0, 0
    for e in entries:
        if len(running) == jobs:
            now = min(end for end, _ in running)
        running = [r for r in running if r[0] > now]
        running.append((now + seconds[e["path"]], e["problem"]))
        worst = max(worst, [p for _, p in running].count(problem))
    return worst


def fake(problem, k):
    return {"path": "%s/%d.py" % (problem, k), "problem": problem}


# Four long MoE runs and enough short runs of other problems to fill the other
# jobs meanwhile: by the old rule (at most two of one problem in any six in a
# row) all four MoE runs overlap.
entries = [fake("moe", k) for k in range(4)] + [fake("p%d" % (k % 5), k) for k in range(40)]
seconds = {e["path"]: (150.0 if e["problem"] == "moe" else 20.0) for e in entries}
with open(gate.RUN_SECONDS) as f:
    real = json.load(f)
gate_seconds = dict(real["seconds"], **seconds)
original = gate.RUN_SECONDS
try:
    scratch = os.path.join(os.environ.get("TMPDIR", "/tmp"), "gate_manifest_test_%d.json" % os.getpid())
    with open(scratch, "w") as f:
        json.dump({"seconds": gate_seconds}, f)
    gate.RUN_SECONDS = scratch
    ordered = gate.cost_order(entries)
finally:
    gate.RUN_SECONDS = original
    os.remove(scratch)
if sorted(e["path"] for e in ordered) != sorted(e["path"] for e in entries):
    sys.exit("FAIL: cost_order lost or repeated entries")
if ordered[0]["problem"] != "moe":
    sys.exit("FAIL: the longest run does not go first: %s" % ordered[0]["path"])
at_once = most_at_once(ordered, seconds, "moe")
if at_once > gate.SAME_PROBLEM_AT_ONCE:
    sys.exit("FAIL: %d runs of one problem at once (at most %d)" % (at_once, gate.SAME_PROBLEM_AT_ONCE))

# The real gate, on the seconds its runs took: its costliest problem (the
# most seconds in all) never runs more than twice at once. Short runs of one
# problem may still bunch up at the end, where nothing else is left.
manifest, chosen = gate.gate_entries()
took = {e["path"]: real["seconds"].get(e["path"], 200.0) for e in chosen}
totals = {}
for e in chosen:
    totals[e["problem"]] = totals.get(e["problem"], 0.0) + took[e["path"]]
costliest = max(totals, key=totals.get)
real_at_once = most_at_once(chosen, took, costliest)
if real_at_once > gate.SAME_PROBLEM_AT_ONCE:
    sys.exit("FAIL: the gate runs %d of %s at once" % (real_at_once, costliest))
paths = {e["path"] for e in chosen}
clean = {e["path"] for e in manifest["entries"] if e["integrity"] == "clean" and e["result"] == "correct"}
if not clean <= paths:
    sys.exit("FAIL: the gate leaves out clean entries: %s" % sorted(clean - paths))
if not {"kernels/corpus/" + c for c in gate.CHEATS} <= paths:
    sys.exit("FAIL: the gate leaves out named cheats")
print("OK: %d gate entries; at most %d runs of one problem at once" % (len(chosen), max(at_once, real_at_once)))
