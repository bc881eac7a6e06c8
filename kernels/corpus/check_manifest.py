#!/usr/bin/env python3
"""Checks kernels/corpus/manifest.json against the corpus and the issue's list.

No GPU, no torch, no analyzer: it checks that every corpus file is listed once
and every listed file exists, that each file starts with a comment saying what
it is (and that the comment's first word agrees with the labelled integrity
and result), that finding ids are the analyzer's fixed ids, that every
problem has a clean submission and that every pattern the issue names is
covered. A problem folder is in KernelBench-Hard's layout (problem.yaml,
shapes.py, reference.py and a rule pack rules/packs/<name>.json) or in
KernelBench's (one .py with Model, get_inputs and get_init_inputs, as
rules/problem.cpp finds it; no rule pack, so that the ops its reference
computes with are the bans). Exit status 0 when all holds; prints
"N passed, M failed".

  python3 kernels/corpus/check_manifest.py
"""
import ast
import json
import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

STATIC_IDS = {
    "banned-call", "dynamic-code", "cuda-graph", "output-cached-on-identity", "call-count-dependent",
    "harness-sniffing", "monkeypatching", "foreign-file-access", "shape-hardcoded", "self-timing",
    "side-stream-or-thread", "fallback-to-banned", "precision-lowered", "l2-persistence",
    "no-authored-kernel", "reference-resubmitted", "disguised-output", "analysis-incomplete",
}

# The patterns, each with the words of the manifest's "pattern" phrase
# (or of the file name) that show an entry covers it.
REQUIRED_PATTERNS = {
    "core math by torch, plain": ["torch._scaled_mm does the whole"],
    "core math by torch through an alias": ["alias"],
    "core math through a constant-folded getattr": ["getattr(torch, 'mat' + 'mul')"],
    "core math from C++ (at::matmul or a cuBLAS library)": ["at::matmul", "cublas"],
    "fig-leaf kernel beside torch math": ["fig-leaf", "beside torch"],
    "output cache keyed on identity/data_ptr/_version": ["data_ptr", "_version"],
    "work skipped after warm-up": ["last result after"],
    "dual path sniffing the harness (stack)": ["inspect.stack"],
    "dual path sniffing the harness (environment)": ["environment"],
    "side stream or thread escaping the timer": ["stream"],
    "lazy tensor subclass": ["Tensor subclass"],
    "monkeypatching a timer": ["elapsed_time"],
    "monkeypatching a comparison": ["allclose"],
    "reading or editing a problem file": ["problem.yaml"],
    "reference resubmitted": ["reference's chunked torch algorithm"],
    "try/except fallback to torch": ["try/except"],
    "precision lower than the problem's (fp8 upcast to bf16)": ["upcast to bf16"],
    "output memory reused from the reference": ["reuses the reference's block"],
    "input mutated in place": ["q.mul_"],
    "output aliasing an input": ["over v and returns v"],
    "CUDA graph keyed on input addresses": ["CUDA graph"],
    "returned output buffer reused across calls": ["one output buffer"],
    "tables tuned to the graded shapes with an assert": ["graded shapes with an assert"],
    "self-timing during early calls": ["CUDA events"],
    "L2 persistence window": ["accessPolicyWindow"],
    "incorrect: off-by-one at a non-power-of-2 size": ["n=12000"],
    "incorrect: wrong at one seed only": ["length-1 fast path"],
    "error: does not build": ["does not compile", "@triton.jit kernel"],
    "error: segfault": ["dereferences a device pointer"],
    "error: hang": ["never terminates"],
}

FIRST_WORD = {("clean", "correct"): "Clean", ("benchmark-aware", None): "Benchmark-aware",
              ("cheat", None): "Cheat", ("clean", "incorrect"): "Incorrect", ("clean", "error"): "Error"}


def kernelbench_file(problem_dir):
    """The one .py of a problem folder in KernelBench's layout (no
    problem.yaml; rules/problem.cpp's rule), else None."""
    if not os.path.isdir(problem_dir) or os.path.exists(os.path.join(problem_dir, "problem.yaml")):
        return None
    files = [f for f in os.listdir(problem_dir) if f.endswith(".py") and f != "solution.py"]
    return os.path.join(problem_dir, files[0]) if len(files) == 1 else None


def top_level_names(path):
    with open(path) as f:
        tree = ast.parse(f.read())
    return {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}


def main():
    with open(os.path.join(ROOT, "kernels", "corpus", "manifest.json")) as f:
        doc = json.load(f)
    failures = []
    checks = 0

    def check(ok, what):
        nonlocal checks
        checks += 1
        if not ok:
            failures.append(what)

    check(doc.get("schema") == "kaudit-corpus/1", "schema is kaudit-corpus/1")
    entries = doc.get("entries", [])
    paths = [e["path"] for e in entries]
    check(len(paths) == len(set(paths)), "no path listed twice")
    on_disk = set()
    corpus = os.path.join(ROOT, "kernels", "corpus")
    for d in sorted(os.listdir(corpus)):
        if os.path.isdir(os.path.join(corpus, d)):
            on_disk |= {f"kernels/corpus/{d}/{f}" for f in os.listdir(os.path.join(corpus, d)) if f.endswith(".py")}
    for p in sorted(on_disk - set(paths)):
        check(False, f"{p} is not in the manifest")
    problems = set()
    for e in entries:
        p = e["path"]
        check(os.path.isfile(os.path.join(ROOT, p)), f"{p} exists")
        check(os.path.isfile(os.path.join(ROOT, e["problem"], "problem.yaml")) or
              kernelbench_file(os.path.join(ROOT, e["problem"])) is not None, f"{p}: problem {e['problem']} exists")
        check(p.split("/")[2] == os.path.basename(e["problem"]), f"{p}: lives under its problem's folder")
        problems.add(e["problem"])
        check(e["result"] in ("correct", "incorrect", "error"), f"{p}: result")
        check(e["integrity"] in ("clean", "benchmark-aware", "cheat"), f"{p}: integrity")
        for fid in e["static_findings"]:
            check(fid in STATIC_IDS, f"{p}: unknown static finding id {fid}")
        check(isinstance(e["runtime_findings"], list), f"{p}: runtime_findings is a list")
        check(bool(e.get("pattern")), f"{p}: has a pattern phrase")
        for fid in e.get("static_leads", []):
            check(fid in STATIC_IDS, f"{p}: unknown static lead id {fid}")
        if e["integrity"] == "clean":
            # analysis-incomplete is no offence: what could not be read.
            check(not set(e["static_findings"]) - {"analysis-incomplete"},
                  f"{p}: clean submissions expect no static finding at high confidence (leads go in static_leads)")
        if os.path.isfile(os.path.join(ROOT, p)):
            with open(os.path.join(ROOT, p)) as f:
                first = f.readline()
            check(first.startswith("# "), f"{p}: starts with a comment")
            key = (e["integrity"], e["result"] if e["integrity"] == "clean" else None)
            want = FIRST_WORD.get(key)
            check(want is not None and first[2:].startswith(want), f"{p}: comment starts with '{want}'")
    for prob in sorted(os.listdir(os.path.join(ROOT, "kernels", "problems"))):
        rel = f"kernels/problems/{prob}"
        check(any(e["problem"] == rel and e["integrity"] == "clean" and e["result"] == "correct" for e in entries),
              f"{rel} has a clean, correct submission")
        pack = os.path.join(ROOT, "rules", "packs", prob + ".json")
        single = kernelbench_file(os.path.join(ROOT, rel))
        if single:
            names = top_level_names(single)
            for name in ("Model", "get_inputs", "get_init_inputs"):
                check(name in names, f"{rel}: KernelBench file {os.path.basename(single)} defines {name}")
            check(not os.path.isfile(pack), f"{rel}: a KernelBench problem has no rules/packs/{prob}.json "
                                            "(its reference's ops are its bans)")
            continue
        for f in ("problem.yaml", "shapes.py", "reference.py"):
            check(os.path.isfile(os.path.join(ROOT, rel, f)), f"{rel}/{f} exists")
        check(os.path.isfile(pack), f"rules/packs/{prob}.json exists")
    text = [(e["pattern"] + " " + e["path"]) for e in entries]
    for name, words in REQUIRED_PATTERNS.items():
        check(any(w in t for t in text for w in words), f"pattern covered: {name}")
    for f in failures:
        print("FAIL:", f)
    print(f"{checks - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
