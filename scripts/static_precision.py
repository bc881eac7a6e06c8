#!/usr/bin/env python3
"""Precision and recall of kaudit's static checks, per check, from `kaudit analyze` JSON.

Two labelled sets are read:
  precision  tests/analyzer/precision/{clean,cheat}/<problem>/*.py; a cheat
             file names the ids it must raise with `# expect: id` (at high
             confidence) or `# expect-lead: id` (medium is enough); a clean
             file that is benchmark-aware by DESIGN.md (it times itself while
             autotuning, reuses its output) says so with
             `# kaudit-label: benchmark-aware: id[, id]`;
  corpus     kernels/corpus/manifest.json (static_findings per entry).
Every file is analysed with its problem (kernels/problems/<problem>). A
finding counts when its category is cheat or benchmark-aware, at two levels:
`high` (confidence high) and `lead` (medium or high). Per check and level:
a true positive is a file that expects the id and got it, a false positive a
file that got it without expecting it, a false negative a file that expected
it and did not get it; counted once per file.

  scripts/static_precision.py [--kaudit build-checks/kaudit] [--set precision|corpus|both]
                              [--json OUT.json]

Prints a Markdown table per set (what docs/performance.md quotes).
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXPECT = re.compile(r"#\s*expect(-lead)?:\s*([a-z0-9, -]+)")
LABEL = re.compile(r"#\s*kaudit-label:\s*benchmark-aware:\s*([a-z0-9, -]+)")
COUNTED = ("cheat", "benchmark-aware")


def precision_items():
    items = []
    base = os.path.join(ROOT, "tests", "analyzer", "precision")
    for label in ("clean", "cheat"):
        folder = os.path.join(base, label)
        if not os.path.isdir(folder):
            continue
        for problem in sorted(os.listdir(folder)):
            pdir = os.path.join(folder, problem)
            for name in sorted(os.listdir(pdir)):
                if not name.endswith(".py"):
                    continue
                path = os.path.join(pdir, name)
                expected = set()
                with open(path, encoding="utf-8") as f:
                    for line in f:
                        m = EXPECT.search(line)
                        if m:
                            expected.update(i.strip() for i in m.group(2).split(",") if i.strip())
                        m = LABEL.search(line)
                        if m:
                            expected.update(i.strip() for i in m.group(1).split(",") if i.strip())
                items.append({"path": path, "problem": os.path.join(ROOT, "kernels", "problems", problem),
                              "label": label, "expected": expected})
    return items


def corpus_items():
    with open(os.path.join(ROOT, "kernels", "corpus", "manifest.json"), encoding="utf-8") as f:
        doc = json.load(f)
    items = []
    for e in doc["entries"]:
        expected = {i for i in e.get("static_findings", []) if i != "analysis-incomplete"}
        items.append({"path": os.path.join(ROOT, e["path"]), "problem": os.path.join(ROOT, e["problem"]),
                      "label": e["integrity"], "expected": expected})
    return items


def analyze(kaudit, items):
    """Runs `kaudit analyze --format json` once per problem; returns path -> findings."""
    by_problem = collections.defaultdict(list)
    for it in items:
        by_problem[it["problem"]].append(it["path"])
    out = {}
    for problem, paths in by_problem.items():
        cmd = [kaudit, "analyze", "--format", "json", "--problem", problem] + paths
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode not in (0, 1):  # 1: findings were reported
            sys.exit(f"kaudit analyze failed ({run.returncode}): {run.stderr.strip()}")
        doc = json.loads(run.stdout)
        for entry in doc["files"]:
            out[os.path.realpath(entry["path"])] = entry["findings"]
    return out


def got_ids(findings, level, categories=COUNTED):
    ids = set()
    for f in findings:
        if f["category"] not in categories:
            continue
        if level == "high" and f["confidence"] != "high":
            continue
        if level == "lead" and f["confidence"] not in ("high", "medium"):
            continue
        ids.add(f["id"])
    return ids


def score(items, results):
    """Per level and check: tp, fp, fn; per level: clean files flagged, cheat files found."""
    table = {}
    for level in ("high", "lead"):
        counts = collections.defaultdict(lambda: {"tp": 0, "fp": 0, "fn": 0})
        flagged_clean, clean_files, found_cheat, cheat_files = 0, 0, 0, 0
        for it in items:
            findings = results.get(os.path.realpath(it["path"]), [])
            got = got_ids(findings, level)
            # A clean file's expected ids are benchmark-aware ones: the same id
            # reported as a cheat there is a false alarm, not a hit.
            if it["label"] == "clean":
                right = got_ids(findings, level, ("benchmark-aware",))
                wrong = got_ids(findings, level, ("cheat",)) | (right - it["expected"])
            else:
                right = got
                wrong = got - it["expected"]
            for i in it["expected"]:
                counts[i]["tp" if i in right else "fn"] += 1
            for i in wrong:
                counts[i]["fp"] += 1
            if it["label"] == "clean":
                # What issue 16 is about: a clean file called a cheat.
                clean_files += 1
                flagged_clean += bool(got_ids(findings, level, ("cheat",)))
            elif it["label"] == "cheat":
                cheat_files += 1
                found_cheat += bool(got & it["expected"]) if it["expected"] else bool(got)
        table[level] = {"checks": dict(counts), "clean_flagged": flagged_clean, "clean_files": clean_files,
                        "cheats_found": found_cheat, "cheat_files": cheat_files}
    return table


def ratio(a, b):
    return "n/a" if b == 0 else f"{a / b:.2f} ({a}/{b})"


def markdown(name, table):
    lines = [f"#### {name}", ""]
    for level in ("high", "lead"):
        t = table[level]
        lines.append(f"- {level}: clean files with a cheat finding {t['clean_flagged']}/{t['clean_files']}, "
                     f"cheat files with an expected finding {t['cheats_found']}/{t['cheat_files']}")
    lines += ["", "| check | precision (high) | recall (high) | precision (lead) | recall (lead) |",
              "|---|---|---|---|---|"]
    ids = sorted(set(table["high"]["checks"]) | set(table["lead"]["checks"]))
    for i in ids:
        h = table["high"]["checks"].get(i, {"tp": 0, "fp": 0, "fn": 0})
        l = table["lead"]["checks"].get(i, {"tp": 0, "fp": 0, "fn": 0})
        lines.append(f"| `{i}` | {ratio(h['tp'], h['tp'] + h['fp'])} | {ratio(h['tp'], h['tp'] + h['fn'])} | "
                     f"{ratio(l['tp'], l['tp'] + l['fp'])} | {ratio(l['tp'], l['tp'] + l['fn'])} |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kaudit", default=os.path.join(ROOT, "build-checks", "kaudit"))
    ap.add_argument("--set", choices=("precision", "corpus", "both"), default="both")
    ap.add_argument("--json", help="also write the counts here")
    args = ap.parse_args()
    sets = []
    if args.set in ("precision", "both"):
        sets.append(("precision set (tests/analyzer/precision)", precision_items()))
    if args.set in ("corpus", "both"):
        sets.append(("corpus (kernels/corpus/manifest.json)", corpus_items()))
    report = {}
    for name, items in sets:
        table = score(items, analyze(args.kaudit, items))
        report[name] = table
        print(markdown(name, table))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(report, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
