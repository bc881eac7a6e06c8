#!/usr/bin/env python3
"""Runs the kernels/ problems and corpus on a GPU and says what happened.

Not kaudit: a plain checker that shows, before the runner and tracer exist,
that every problem's reference runs on its shapes and that every clean corpus
submission is correct against the reference on every shape. The other
submissions are run too and their observed result is reported beside the
expected one (a disagreement there is information, not a failure: this checker
has none of kaudit's probes for harness sniffing, timer escapes and so on).

  check_kernels.py drive --out DIR [--budget S] [--workers N] [--only SUBSTR]
  check_kernels.py reference --problem DIR --json FILE
  check_kernels.py submission --problem DIR --submission FILE --json FILE

Each submission runs in its own process, in a scratch folder holding copies of
the problem files, so that a crash, a hang or a monkeypatch stays there.
"""
import argparse
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MANIFEST = os.path.join(REPO, "kernels", "corpus", "manifest.json")


# --------------------------------------------------------------------------
# worker side (one problem, optionally one submission, in this process)
# --------------------------------------------------------------------------

class Doc:
    """The worker's JSON document, rewritten after every step so that a crash
    or a kill leaves what was learnt so far."""

    def __init__(self, path, **fields):
        self.path = path
        self.d = dict(fields, cases=[], notes=[], timing=[], status="running")
        self.flush()

    def note(self, text):
        if text not in self.d["notes"]:
            self.d["notes"].append(text)

    def flush(self):
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.d, f, indent=1)
        os.replace(tmp, self.path)


def load_module(name, path):
    import importlib.util
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def read_yaml(path):
    import yaml
    with open(path) as f:
        return yaml.safe_load(f)


def stage_problem(problem_dir, submission=None):
    """A scratch folder with copies of the problem files (and solution.py)."""
    work = tempfile.mkdtemp(prefix="kaudit_check_")
    for f in ("problem.yaml", "shapes.py", "reference.py"):
        shutil.copy(os.path.join(problem_dir, f), work)
    if submission:
        shutil.copy(submission, os.path.join(work, "solution.py"))
    os.chdir(work)
    sys.path.insert(0, work)
    return work


def eval_formula(expr, shape):
    try:
        return float(eval(expr, {"__builtins__": {}}, dict(shape)))  # our own yaml, not a submission's
    except Exception:
        return float("nan")


def as_list(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def run_worker(args):
    # Capture what comparing and timing need before any submission is
    # imported: a submission may replace torch.allclose or Event.elapsed_time.
    import torch
    T = dict(
        isclose=torch.isclose, isnan=torch.isnan, equal=torch.equal, abs=torch.abs, sub=torch.sub,
        sync=torch.cuda.synchronize, Event=torch.cuda.Event, elapsed=torch.cuda.Event.elapsed_time,
        record=torch.cuda.Event.record, Tensor=torch.Tensor, float=torch.Tensor.float,
        is_tensor=torch.is_tensor, manual_seed=torch.manual_seed)

    problem_dir = os.path.abspath(args.problem)
    submission = os.path.abspath(args.submission) if args.submission else None
    doc = Doc(args.json, problem=os.path.relpath(problem_dir, REPO),
              submission=os.path.relpath(submission, REPO) if submission else None)
    try:
        _worker_body(args, T, problem_dir, submission, doc)
    except BaseException as e:  # report, then let the driver see the failure
        import traceback
        doc.d["status"] = "error"
        doc.d["error"] = f"{type(e).__name__}: {e}"[:2000]
        doc.d["traceback"] = traceback.format_exc()[-4000:]
        doc.flush()
        traceback.print_exc()
        sys.exit(3)
    doc.d["status"] = "done"
    doc.flush()


def _worker_body(args, T, problem_dir, submission, doc):
    import torch
    deadline = time.time() + args.budget
    stage_problem(problem_dir, submission)
    meta = read_yaml("problem.yaml")
    atol = float(meta["tolerance"]["atol"])
    rtol = float(meta["tolerance"]["rtol"])
    shapes = load_module("shapes", "shapes.py").SHAPES
    ref_mod = load_module("reference", "reference.py")
    sol = None
    if submission:
        t0 = time.time()
        sol = load_module("solution", "solution.py")
        doc.d["import_s"] = round(time.time() - t0, 2)
    seeds = [int(s) for s in args.seeds.split(",")]
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False

    def reset_reference_flags():
        # A submission may flip these; the reference must not run with them.
        if torch.backends.cuda.matmul.allow_tf32:
            doc.note("submission switched torch.backends.cuda.matmul.allow_tf32 on")
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False

    def make(shape, seed):
        for k, v in shape.items():
            setattr(ref_mod, k, v)
        T["manual_seed"](seed)
        return ref_mod.get_inputs(), ref_mod.get_init_inputs()

    def clone_all(xs):
        return [x.clone() if T["is_tensor"](x) else x for x in xs]

    def compare(out, ref):
        outs, refs = as_list(out), as_list(ref)
        if len(outs) != len(refs):
            return False, f"{len(outs)} outputs, expected {len(refs)}", None
        worst = 0.0
        for o, r in zip(outs, refs):
            if not T["is_tensor"](o):
                return False, f"output is {type(o).__name__}", None
            if tuple(o.shape) != tuple(r.shape):
                return False, f"shape {tuple(o.shape)} != {tuple(r.shape)}", None
            if o.dtype != r.dtype:
                doc.note(f"output dtype {o.dtype} (reference {r.dtype})")
            of, rf = T["float"](o), T["float"](r)
            if not r.dtype.is_floating_point:
                if not T["equal"](of, rf):
                    bad = float((of != rf).float().mean())
                    return False, f"integer output differs in {bad:.2%} of entries", None
                continue
            nan_o, nan_r = T["isnan"](of), T["isnan"](rf)
            if bool((nan_o != nan_r).any()):
                return False, "NaN where the reference has none", None
            close = T["isclose"](of, rf, rtol=rtol, atol=atol, equal_nan=True)
            err = T["abs"](T["sub"](of, rf))
            err = float(err[~nan_r].max()) if bool((~nan_r).any()) else 0.0
            worst = max(worst, err)
            if not bool(close.all()):
                bad = float((~close).float().mean())
                return False, f"{bad:.3%} of entries outside atol={atol} rtol={rtol} (max abs err {err:.3g})", err
        return True, "", worst

    def storages(xs):
        spans = []
        for x in xs:
            if T["is_tensor"](x) and x.numel() > 0:
                st = x.untyped_storage()
                spans.append((st.data_ptr(), st.data_ptr() + st.nbytes()))
        return spans

    def aliases(out, inputs):
        spans = storages(inputs)
        for o in as_list(out):
            if T["is_tensor"](o) and o.numel() > 0:
                p = o.untyped_storage().data_ptr()
                if any(a <= p < b for a, b in spans):
                    return True
        return False

    def check_call(model, inputs):  # the correctness call
        out = model(*inputs)
        T["sync"]()
        return out

    def timed_call(model, inputs):  # a call made the way a benchmark times one
        s, e = T["Event"](enable_timing=True), T["Event"](enable_timing=True)
        T["record"](s)
        out = model(*inputs)
        T["record"](e)
        T["sync"]()
        return out, T["elapsed"](s, e)

    def time_it(fn, n):
        times = []
        for _ in range(n):
            s, e = T["Event"](enable_timing=True), T["Event"](enable_timing=True)
            T["record"](s)
            fn()
            T["record"](e)
            T["sync"]()
            times.append(T["elapsed"](s, e))
        times.sort()
        return times[len(times) // 2]

    for si, shape in enumerate(shapes):
        if si > 0 and time.time() > deadline:  # the first shape always runs
            doc.note(f"budget spent before shape {si}")
            break
        label = ",".join(f"{k}={v}" for k, v in shape.items())
        ref_model = None
        model = None
        for seed in seeds:
            inputs, init = make(shape, seed)
            if ref_model is None:
                ref_model = ref_mod.Model(*init).cuda().eval()
            case = dict(shape=label, seed=seed)
            if sol is None:  # reference alone
                t0 = time.time()
                with torch.no_grad():
                    ref = ref_model(*inputs)
                T["sync"]()
                finite = all(bool(torch.isfinite(T["float"](r)).all()) for r in as_list(ref) if r.dtype.is_floating_point)
                case.update(probe="reference", ok=finite, detail="" if finite else "non-finite output",
                            wall_s=round(time.time() - t0, 3),
                            out_shapes=[list(r.shape) for r in as_list(ref)])
                doc.d["cases"].append(case)
                if seed == seeds[0]:
                    ms = time_it(lambda: ref_model(*inputs), 3)
                    doc.d["timing"].append(dict(shape=label, ref_ms=round(ms, 3)))
                doc.flush()
                del ref, inputs
                continue

            if model is None:
                cls = getattr(sol, "ModelNew", None) or getattr(sol, "Model")
                model = cls(*init)
                if isinstance(model, torch.nn.Module):
                    model = model.cuda()
            snapshot = clone_all(inputs)
            # 1. the correctness call, submission before reference
            t0 = time.time()
            with torch.no_grad():
                out = check_call(model, inputs)
            case["first_call_s"] = round(time.time() - t0, 3)
            if not T["is_tensor"](out) and not isinstance(out, (tuple, list)):
                doc.note(f"returns a {type(out).__module__}.{type(out).__name__}, not a torch.Tensor")
            for o in as_list(out):
                if T["is_tensor"](o) and type(o) is not T["Tensor"]:
                    doc.note(f"returns a {type(o).__module__}.{type(o).__name__}, not a plain torch.Tensor")
            mutated = [i for i, (a, b) in enumerate(zip(inputs, snapshot))
                       if T["is_tensor"](a) and not T["equal"](a, b)]
            if mutated:
                doc.note(f"mutates input(s) {mutated} in place")
            if aliases(out, inputs):
                doc.note("returns an output that aliases an input")
            reset_reference_flags()
            with torch.no_grad():
                ref = ref_model(*clone_all(snapshot))
            T["sync"]()
            ok, detail, err = compare(out, ref)
            doc.d["cases"].append(dict(case, probe="check", ok=ok, detail=detail, max_abs_err=err))
            doc.flush()
            # keep the first output alive: a fresh allocation can then never
            # land on its address by chance
            first_ptrs = [o.data_ptr() for o in as_list(out) if T["is_tensor"](o)]
            # 2. a second call on the same input tensors, as they are now (a
            #    benchmark does not restore them), timed as a benchmark does,
            #    its output verified against the reference on the original
            #    values: an in-place mutation or an output written over an
            #    input shows up here
            with torch.no_grad():
                out2, ms = timed_call(model, inputs)
            ok2, detail2, err2 = compare(out2, ref)
            doc.d["cases"].append(dict(shape=label, seed=seed, probe="timed", ok=ok2, detail=detail2,
                                       max_abs_err=err2, event_ms=round(ms, 4)))
            if [o.data_ptr() for o in as_list(out2) if T["is_tensor"](o)] == first_ptrs:
                doc.note("returns the same output buffer on repeated calls")
            out = out2 = None
            doc.flush()
            # 3. rewrite: new values in the same tensors, version counters untouched
            if seed == seeds[0]:
                new_inputs, _ = make(shape, seed + 1000)
                for a, b in zip(inputs, new_inputs):
                    if T["is_tensor"](a):
                        a.data.copy_(b)
                new_snapshot = clone_all(inputs)
                del new_inputs
                with torch.no_grad():
                    out3, _ = timed_call(model, inputs)
                reset_reference_flags()
                with torch.no_grad():
                    ref3 = ref_model(*new_snapshot)
                ok3, detail3, err3 = compare(out3, ref3)
                doc.d["cases"].append(dict(shape=label, seed=seed + 1000, probe="rewrite", ok=ok3,
                                           detail=detail3, max_abs_err=err3))
                doc.flush()
                out3 = ref3 = new_snapshot = None
                # timing of submission and reference (indicative: other
                # workers share the GPU)
                with torch.no_grad():
                    sub_ms = time_it(lambda: model(*inputs), 5)
                    ref_ms = time_it(lambda: ref_model(*inputs), 3)
                flops = eval_formula(str(meta.get("flops_formula", "nan")), shape)
                nbytes = eval_formula(str(meta.get("bytes_formula", "nan")), shape)
                doc.d["timing"].append(dict(shape=label, sub_ms=round(sub_ms, 4), ref_ms=round(ref_ms, 4),
                                            tflops=round(flops / sub_ms / 1e9, 1) if sub_ms > 0 else None,
                                            gbps=round(nbytes / sub_ms / 1e6, 1) if sub_ms > 0 else None))
                doc.flush()
            ref = inputs = snapshot = None
            if si > 0 and time.time() > deadline:
                break
        model = ref_model = None
        torch.cuda.empty_cache()


# --------------------------------------------------------------------------
# driver side
# --------------------------------------------------------------------------

def observed_result(doc, rc, timed_out):
    if doc is None:
        return "error", f"no result document (exit {rc})"
    if timed_out:
        return "error", "timed out (hang?)"
    if doc.get("status") == "error" or rc != 0:
        why = doc.get("error") or (f"killed by signal {-rc}" if rc and rc < 0 else f"exit {rc}")
        return "error", why
    cases = doc.get("cases", [])
    if not cases:
        return "error", "no case ran"
    bad = [c for c in cases if not c.get("ok")]
    if bad:
        c = bad[0]
        return "incorrect", f"{c['probe']} {c['shape']} seed {c['seed']}: {c['detail']}"
    partial = any("budget spent" in n for n in doc.get("notes", []))
    return "correct", "partial (budget)" if partial else ""


def build_jobs(manifest, only):
    jobs = []
    problems = sorted({e["problem"] for e in manifest["entries"]} |
                      {os.path.join("kernels", "problems", p) for p in
                       os.listdir(os.path.join(REPO, "kernels", "problems"))})
    for p in problems:
        jobs.append(dict(kind="reference", name=f"reference:{os.path.basename(p)}", problem=p,
                         expected="correct", integrity="-", timeout=240, order=0))
    for e in manifest["entries"]:
        src = open(os.path.join(REPO, e["path"])).read()
        heavy = "load_inline" in src
        # clean first; error ones early (their hangs use up a timeout);
        # CUDA extensions last (each build takes the better part of a minute).
        order = 1 if e["integrity"] == "clean" and e["result"] == "correct" else (2 if e["result"] == "error" and not heavy else (4 if heavy else 3))
        jobs.append(dict(kind="submission", name=e["path"], problem=e["problem"], path=e["path"],
                         expected=e["result"], integrity=e["integrity"], pattern=e.get("pattern", ""),
                         timeout=(180 if heavy else 75) if e["result"] == "error" else 240, order=order))
    if only:
        jobs = [j for j in jobs if any(o in j["name"] for o in only.split(","))]
    jobs.sort(key=lambda j: j["order"])
    return jobs


def run_driver(args):
    out_dir = os.path.abspath(args.out)
    os.makedirs(out_dir, exist_ok=True)
    scratch = tempfile.mkdtemp(prefix="kaudit_jobs_")
    with open(MANIFEST) as f:
        manifest = json.load(f)
    jobs = build_jobs(manifest, args.only)
    start = time.time()
    deadline = start + args.budget
    pending = list(jobs)
    running = []
    results = []

    def launch(job, idx):
        jpath = os.path.join(scratch, f"job{idx}.json")
        lpath = os.path.join(scratch, f"job{idx}.log")
        cmd = [sys.executable, os.path.abspath(__file__), job["kind"], "--problem",
               os.path.join(REPO, job["problem"]), "--json", jpath, "--seeds", args.seeds]
        if job["kind"] == "submission":
            cmd += ["--submission", os.path.join(REPO, job["path"])]
        left = deadline - time.time()
        limit = max(5.0, min(job["timeout"], left))
        cmd += ["--budget", str(max(1.0, limit - 20))]
        env = dict(os.environ, PYTHONUNBUFFERED="1",
                   TORCH_EXTENSIONS_DIR=os.path.join(scratch, f"ext{idx}"))
        log = open(lpath, "w")
        p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        return dict(job=job, p=p, t0=time.time(), limit=limit, json=jpath, log=lpath, logf=log)

    def finish(r, timed_out):
        r["logf"].close()
        doc = None
        if os.path.exists(r["json"]):
            try:
                with open(r["json"]) as f:
                    doc = json.load(f)
            except Exception:
                doc = None
        rc = r["p"].returncode
        res, why = observed_result(doc, rc, timed_out)
        job = r["job"]
        results.append(dict(name=job["name"], kind=job["kind"], problem=job["problem"],
                            expected=job["expected"], integrity=job["integrity"],
                            pattern=job.get("pattern", ""), observed=res, why=why,
                            wall_s=round(time.time() - r["t0"], 1), rc=rc, doc=doc, log=r["log"]))
        print(f"[{time.time() - start:6.1f}s] {res:9s} (expected {job['expected']:9s}) {job['name']}  {why}", flush=True)

    idx = 0
    while pending or running:
        while pending and len(running) < args.workers and time.time() < deadline - 10:
            running.append(launch(pending.pop(0), idx))
            idx += 1
        if not running and pending:
            break  # budget spent
        time.sleep(0.5)
        for r in list(running):
            elapsed = time.time() - r["t0"]
            if r["p"].poll() is not None:
                running.remove(r)
                finish(r, False)
            elif elapsed > r["limit"]:
                try:
                    os.killpg(r["p"].pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                r["p"].wait()
                running.remove(r)
                finish(r, True)
    for job in pending:
        results.append(dict(name=job["name"], kind=job["kind"], problem=job["problem"], expected=job["expected"],
                            integrity=job["integrity"], pattern=job.get("pattern", ""), observed="skipped",
                            why="budget spent before it started", wall_s=0, rc=None, doc=None, log=None))

    # One log file holding every job's output (what comes back is limited to a few files).
    with open(os.path.join(out_dir, "jobs.log"), "w") as f:
        for r in results:
            f.write(f"\n===== {r['name']} -> {r['observed']} ({r['why']}) in {r['wall_s']}s rc={r['rc']}\n")
            if r.get("log") and os.path.exists(r["log"]):
                with open(r["log"], errors="replace") as lf:
                    f.write(lf.read()[-20000:])
    slim = [{k: v for k, v in r.items() if k != "log"} for r in results]
    with open(os.path.join(out_dir, "results.json"), "w") as f:
        json.dump(dict(schema="kaudit-gpu-check/1", wall_s=round(time.time() - start, 1), results=slim), f, indent=1)
    table = render_table(results)
    with open(os.path.join(out_dir, "summary.txt"), "w") as f:
        f.write(table)
    print(table)
    failed = [r for r in results if (r["kind"] == "reference" or r["integrity"] == "clean") and
              r["expected"] == "correct" and r["observed"] != "correct"]
    return 1 if failed else 0


def render_table(results):
    lines = []
    w = max(len(r["name"].replace("kernels/corpus/", "")) for r in results) + 1
    lines.append(f"{'job':<{w}} {'expect':<10} {'integrity':<16} {'observed':<10} {'s':>6}  notes")
    lines.append("-" * (w + 60))
    for r in results:
        name = r["name"].replace("kernels/corpus/", "")
        notes = [r["why"]] if r["why"] else []
        doc = r.get("doc") or {}
        notes += doc.get("notes", [])
        mark = ""
        if r["expected"] != r["observed"]:
            mark = " *"
        lines.append(f"{name:<{w}} {r['expected']:<10} {r['integrity']:<16} {r['observed'] + mark:<10} "
                     f"{r['wall_s']:>6}  {'; '.join(notes)[:160]}")
    lines.append("")
    lines.append("timings (median ms, CUDA events, other jobs sharing the GPU: indicative only)")
    for r in results:
        doc = r.get("doc") or {}
        if doc.get("timing") and (r["kind"] == "reference" or r["integrity"] == "clean"):
            for t in doc["timing"]:
                sub = f"sub {t['sub_ms']} ms ({t.get('tflops')} TFLOP/s, {t.get('gbps')} GB/s)  " if "sub_ms" in t else ""
                lines.append(f"  {r['name'].replace('kernels/corpus/', '')}: {t['shape']}: {sub}ref {t['ref_ms']} ms")
    refs = [r for r in results if r["kind"] == "reference"]
    clean = [r for r in results if r["kind"] == "submission" and r["integrity"] == "clean" and r["expected"] == "correct"]
    others = [r for r in results if r["kind"] == "submission" and r not in clean]
    agree = sum(1 for r in others if r["observed"] == r["expected"])
    lines.append("")
    lines.append(f"references running on all their shapes: {sum(r['observed'] == 'correct' for r in refs)}/{len(refs)}")
    lines.append(f"clean submissions correct on every shape: {sum(r['observed'] == 'correct' for r in clean)}/{len(clean)}")
    lines.append(f"other submissions whose observed result matches the expected one: {agree}/{len(others)} "
                 f"(* marks a difference; this checker has no kaudit probes)")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("drive")
    d.add_argument("--out", required=True)
    d.add_argument("--budget", type=float, default=300.0, help="seconds for the whole run")
    d.add_argument("--workers", type=int, default=6)
    d.add_argument("--seeds", default="0,1")
    d.add_argument("--only", default="", help="comma-separated substrings of job names")
    for name in ("reference", "submission"):
        w = sub.add_parser(name)
        w.add_argument("--problem", required=True)
        w.add_argument("--json", required=True)
        w.add_argument("--seeds", default="0,1")
        w.add_argument("--budget", type=float, default=200.0)
        if name == "submission":
            w.add_argument("--submission", required=True)
    args = ap.parse_args()
    if args.cmd == "drive":
        sys.exit(run_driver(args))
    args.submission = getattr(args, "submission", None)
    run_worker(args)


if __name__ == "__main__":
    main()
