#!/usr/bin/env python3
"""Runs the attack suite (tests/attacks/manifest.json) against a kaudit binary.

Usage: run_attacks.py KAUDIT ROOT [ATTACK_NAME...]

Every attack is audited on the CPU by itself (kaudit audit --device cpu
--jobs 1) in a folder of its own, never in the source tree: the binary and its
harness, the problems, the honest submission and the attacks are copied into a
temporary folder first, because some attacks rewrite the harness, the problem
folder or the batch. kaudit runs under a sacrificial driver (a shell that
records its exit status), in a session of its own, with a wall-clock limit and
a small environment holding a fake secret (KAUDIT_TEST_SECRET=hunter2).

Checks per attack, whatever its expectation says:
  - kaudit exited normally (status 0 or 1), within the limit, and its parent
    (the driver) was not harmed;
  - the attack is not judged clean and correct, in the batch's summary and
    when the verdict is recomputed from the batch folder (kaudit verdict);
  - the expected result and finding ids are there (manifest "expect");
  - no file outside the attack's batch folders changed (the copied binary
    and harness, problems, honest submission, attacks and earlier batches are
    hashed before and after);
  - no process of the run outlives kaudit;
  - the secret appears in no file of the batch folders;
  - every JSON file of the batch folders is valid UTF-8 JSON;
  - with "honest_stays_clean": the honest submission audited after the
    attack in the same batch, and again in a later batch while anything the
    attack left behind still runs, is correct and clean.

One line per attack (PASS, FAIL, KNOWN GAP, or PASS with a note that its
known_gap can be cleared), then a summary. Exit status 1 on any FAIL that is
not marked known_gap in the manifest, 0 otherwise, 77 without
/usr/bin/python3 and torch. KAUDIT_ATTACKS_KEEP=1 keeps the temporary folder.
"""
import hashlib
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SECRET = "hunter2"
HONEST = "tests/runner/solutions/clean.py"
DEFAULT_LIMIT_S = 150
DRIVER = """#!/bin/sh
# The process that starts kaudit: a parent for attacks to aim at. Records
# kaudit's exit status (128 + N for signal N).
status="$1"
shift
"$@"
echo $? > "$status"
"""


def log(msg):
    print(msg, flush=True)


# ------------------------------------------------------------------ processes

def proc_pids():
    return [int(p) for p in os.listdir("/proc") if p.isdigit()]


def proc_info(pid):
    """(cmdline bytes, cwd, pgid) of a live process, or None (gone, a zombie,
    or with a SIGKILL pending)."""
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            cmd = f.read()
        with open("/proc/%d/stat" % pid) as f:
            stat = f.read()
        fields = stat[stat.rindex(")") + 2:].split()
        if fields[0] == "Z":
            return None
        pgid = int(fields[2])
        with open("/proc/%d/status" % pid) as f:
            masks = [int(l.split()[1], 16) for l in f if l.startswith(("SigPnd:", "ShdPnd:"))]
        if any(m & (1 << (signal.SIGKILL - 1)) for m in masks):
            return None  # already being killed
        try:
            cwd = os.readlink("/proc/%d/cwd" % pid)
        except OSError:
            cwd = ""
        return cmd, cwd, pgid
    except (OSError, ValueError, IndexError):
        return None


def processes_of(tmp):
    """Live processes started from the suite's temporary folder (the harness
    lives there: every reference, submission and anything they forked)."""
    me = os.getpid()
    mark = tmp.encode()
    out = []
    for pid in proc_pids():
        if pid == me:
            continue
        info = proc_info(pid)
        if info and (mark in info[0] or info[1].startswith(tmp)):
            out.append(pid)
    return out


def group_alive(pgid):
    for pid in proc_pids():
        info = proc_info(pid)
        if info and info[2] == pgid:
            return True
    return False


def kill_pids(pids):
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def run_kaudit(tmp, env, argv, cwd, limit_s, tag):
    """kaudit under the driver, in a session of its own. Returns a dict: status
    (kaudit's exit status or None), signal, driver (its return code), timed_out,
    seconds, output."""
    status_file = os.path.join(tmp, "status", tag)
    out_file = os.path.join(tmp, "logs", tag + ".log")
    if os.path.exists(status_file):
        os.remove(status_file)
    start = time.time()
    with open(out_file, "wb") as out:
        p = subprocess.Popen([os.path.join(tmp, "bin", "driver.sh"), status_file] + argv, cwd=cwd, env=env,
                             stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
        timed_out = False
        try:
            p.wait(timeout=limit_s)
        except subprocess.TimeoutExpired:
            timed_out = True
        # The driver may be gone while kaudit (same process group) still runs.
        while not timed_out and group_alive(p.pid):
            if time.time() - start > limit_s:
                timed_out = True
                break
            time.sleep(0.1)
        if timed_out:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                pass
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
    res = {"status": None, "signal": None, "driver": p.returncode, "timed_out": timed_out,
           "seconds": time.time() - start}
    try:
        with open(status_file) as f:
            code = int(f.read().strip())
        if code > 128:
            res["signal"] = code - 128
        else:
            res["status"] = code
    except (OSError, ValueError):
        pass
    with open(out_file, "rb") as f:
        res["output"] = f.read().decode("utf-8", "replace")
    return res


# ----------------------------------------------------------------- snapshots

def snapshot(roots, skip):
    """path -> digest of every file and link under `roots`, except under `skip`."""
    snap = {}
    for root in roots:
        if not os.path.isdir(root):
            continue
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if os.path.join(dirpath, d) not in skip]
            for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
                path = os.path.join(dirpath, name)
                try:
                    if os.path.islink(path):
                        snap[path] = "link:" + os.readlink(path)
                    else:
                        with open(path, "rb") as f:
                            snap[path] = hashlib.sha256(f.read()).hexdigest()
                except OSError as e:
                    snap[path] = "unreadable:%s" % e.errno
    return snap


def changed_paths(before, after, tmp):
    out = []
    for path in sorted(set(before) | set(after)):
        if before.get(path) != after.get(path):
            what = "added" if path not in before else "deleted" if path not in after else "changed"
            out.append("%s %s" % (os.path.relpath(path, tmp), what))
    return out


def restore(tmp):
    """The copied tree as it was: an attack may have rewritten it."""
    for part in ("root", "bin"):
        shutil.rmtree(os.path.join(tmp, part), ignore_errors=True)
        shutil.copytree(os.path.join(tmp, "pristine", part), os.path.join(tmp, part), symlinks=True)


def files_under(folder):
    for dirpath, _, filenames in os.walk(folder):
        for name in filenames:
            yield os.path.join(dirpath, name)


def secret_files(folder):
    hits = []
    for path in files_under(folder):
        try:
            with open(path, "rb") as f:
                if SECRET.encode() in f.read():
                    hits.append(os.path.relpath(path, folder))
        except OSError:
            pass
    return hits


def invalid_json_files(folder):
    bad = []
    for path in files_under(folder):
        if not path.endswith(".json"):
            continue
        try:
            with open(path, "rb") as f:
                json.loads(f.read().decode("utf-8"))
        except (OSError, ValueError) as e:
            bad.append("%s (%s)" % (os.path.relpath(path, folder), str(e)[:60]))
    return bad


# ------------------------------------------------------------------ evidence

def load_json(path):
    try:
        with open(path, "rb") as f:
            return json.loads(f.read().decode("utf-8"))
    except (OSError, ValueError):
        return None


def entry_of(batch, source_rel):
    """The summary entry of the submission at `source_rel` (a path relative to
    kaudit's cwd), or the batch's only entry; None without a summary."""
    summary = load_json(os.path.join(batch, "summary.json"))
    if not summary:
        return None
    subs = summary.get("submissions", [])
    for e in subs:
        if e.get("path") == source_rel:
            return e
    return subs[0] if len(subs) == 1 else None


def key_folder(batch, entry):
    if entry and entry.get("key"):
        return os.path.join(batch, entry["key"])
    keys = [d for d in os.listdir(batch) if os.path.isdir(os.path.join(batch, d))] if os.path.isdir(batch) else []
    return os.path.join(batch, keys[0]) if len(keys) == 1 else None


def finding_ids(folder):
    ids = set()
    if not folder:
        return ids
    run = load_json(os.path.join(folder, "run.json")) or {}
    ids |= {f.get("id") for f in run.get("findings", []) if isinstance(f, dict)}
    analysis = load_json(os.path.join(folder, "analysis.json")) or {}
    for entry in analysis.get("files", []):
        ids |= {f.get("id") for f in entry.get("findings", []) if isinstance(f, dict)}
    verdict = load_json(os.path.join(folder, "verdict.json")) or {}
    for part in ("deciding", "beside"):
        ids |= {f.get("id") for f in verdict.get(part, []) if isinstance(f, dict)}
    return ids


def describe_verdict(v):
    if not v:
        return "no verdict"
    return "%s/%s" % (v.get("result"), v.get("integrity"))


HONEST_BASELINES = {}  # problem -> the honest submission's verdict audited alone


def honest_baseline(tmp, env, root, attack):
    """The honest submission's verdict in a batch of its own, before any attack
    of the problem ran: what the attack must not change (on the GPU a
    pure-PyTorch module is not clean, which is the policy, not a frame-up)."""
    problem = attack["problem"]
    if problem not in HONEST_BASELINES:
        batch = os.path.join(tmp, "batches", "baseline-" + str(len(HONEST_BASELINES)))
        argv = [os.path.join(tmp, "bin", "kaudit").encode(), b"audit", b"--device", DEVICE.encode(), b"--python",
                PYTHON.encode(), b"--jobs", b"1", b"-o", batch.encode(), b"--problem", problem.encode(), HONEST.encode()]
        run_kaudit(tmp, env, argv, root, DEFAULT_LIMIT_S, "baseline-" + str(len(HONEST_BASELINES)))
        HONEST_BASELINES[problem] = describe_verdict(entry_of(batch, HONEST))
    return HONEST_BASELINES[problem]


def clean_and_correct(v):
    return bool(v) and v.get("result") == "correct" and v.get("integrity") == "clean"


# ------------------------------------------------------------------- setup

def known_ids(kaudit):
    out = subprocess.run([kaudit, "explain", "--all", "--markdown"], capture_output=True, text=True)
    ids = set()
    for line in out.stdout.splitlines():
        if line.startswith("## "):
            ids.add(line[3:].strip())
    return ids


def find_harness(kaudit, root):
    """The harness's files: its entry kaudit_harness.py and its modules beside it."""
    for d in (os.path.join(os.path.dirname(kaudit), "harness"), os.path.join(root, "runner", "harness")):
        if os.path.isfile(os.path.join(d, "kaudit_harness.py")):
            return sorted(glob.glob(os.path.join(d, "kaudit_harness*.py")))
    raise SystemExit("run_attacks: no kaudit_harness.py next to %s or in %s/runner/harness" % (kaudit, root))


def lay_out(tmp, kaudit, root):
    pristine = os.path.join(tmp, "pristine")
    os.makedirs(os.path.join(pristine, "bin", "harness"))
    shutil.copy2(kaudit, os.path.join(pristine, "bin", "kaudit"))
    for f in find_harness(kaudit, root):
        shutil.copy2(f, os.path.join(pristine, "bin", "harness", os.path.basename(f)))
    tracer = os.path.join(os.path.dirname(kaudit), "libkaudit_tracer.so")
    if os.path.isfile(tracer):  # CUDA runs are traced
        shutil.copy2(tracer, os.path.join(pristine, "bin", "libkaudit_tracer.so"))
    with open(os.path.join(pristine, "bin", "driver.sh"), "w") as f:
        f.write(DRIVER)
    os.chmod(os.path.join(pristine, "bin", "driver.sh"), 0o755)
    r = os.path.join(pristine, "root")
    shutil.copytree(os.path.join(root, "tests", "runner", "problems"), os.path.join(r, "tests", "runner", "problems"))
    os.makedirs(os.path.join(r, "tests", "runner", "solutions"))
    shutil.copy2(os.path.join(root, HONEST), os.path.join(r, HONEST))
    shutil.copytree(os.path.join(root, "tests", "attacks"), os.path.join(r, "tests", "attacks"),
                    ignore=shutil.ignore_patterns("__pycache__"))
    for d in ("batches", "tmp", "home", "logs", "status", "gen"):
        os.makedirs(os.path.join(tmp, d))
    restore(tmp)


def generate(tmp, attack):
    """Attacks the suite writes itself: returns (path to audit relative to kaudit's cwd, as bytes)."""
    gen = attack.get("generate")
    root = os.path.join(tmp, "root")
    if not gen:
        return attack["path"].encode()
    with open(os.path.join(root, attack["path"]), "rb") as f:
        body = f.read()
    folder = os.path.join(root, "gen", attack["name"])
    os.makedirs(folder, exist_ok=True)
    if gen["kind"] == "comment_lines":
        filler = "# %06d \tcomment line, Ünïcödé ✓ — " + "x" * 60 + "\n"
        head = "".join(filler % k for k in range(gen["lines"])).encode()
        name = (attack["name"] + ".py").encode()
        data = head + body
    elif gen["kind"] == "non_utf8_name":
        name = b"bytes_\xff\xfe\x80_name.py"
        data = body
    else:
        raise SystemExit("run_attacks: unknown generate kind %r" % gen["kind"])
    path = os.path.join(folder.encode(), name)
    with open(path, "wb") as f:
        f.write(data)
    return os.path.relpath(path, root.encode())


# ------------------------------------------------------------------- checks

def check_run(res, what, reasons, outcome):
    if res["timed_out"]:
        reasons.append("%s: hung (killed after %.0f s)" % (what, res["seconds"]))
        outcome.add("hung")
    elif res["signal"]:
        reasons.append("%s: kaudit killed by signal %d" % (what, res["signal"]))
        outcome.add("crashed")
    elif res["status"] is None:
        reasons.append("%s: kaudit's parent (the driver) was killed (return code %s); kaudit's status unknown"
                       % (what, res["driver"]))
        outcome.add("parent killed")
    elif res["status"] not in (0, 1):
        tail = res["output"].strip().splitlines()[-1:] or [""]
        reasons.append("%s: kaudit exited with status %d (%s)" % (what, res["status"], tail[0][:160]))
        outcome.add("crashed")


def id_of(spec):
    return spec["id"] if isinstance(spec, dict) else spec


def pending(spec):
    return isinstance(spec, dict) and spec.get("pending", False)


def producible(spec):
    """An expected id this binary can report: a binary built without the
    analyzer (the GPU machine's) reports no static finding."""
    return id_of(spec) in KNOWN_IDS or pending(spec)


def check_expectations(attack, verdict, ids, run_doc, reasons, outcome):
    expect = dict(attack.get("expect", {}))
    for key in ("findings", "findings_any"):
        if key in expect:
            expect[key] = [s for s in expect[key] if producible(s)]
    if verdict and expect.get("results") and verdict.get("result") not in expect["results"]:
        reasons.append("result %s, expected one of %s" % (verdict.get("result"), "/".join(expect["results"])))
    for spec in expect.get("findings", []):
        if id_of(spec) not in ids:
            reasons.append("missing finding %s%s" % (id_of(spec), " (pending id)" if pending(spec) else ""))
            outcome.add("evidence missing")
    anyof = expect.get("findings_any", [])
    if anyof and not any(id_of(s) in ids for s in anyof):
        reasons.append("none of the findings %s" % ", ".join(
            id_of(s) + (" (pending)" if pending(s) else "") for s in anyof))
        outcome.add("evidence missing")
    if expect.get("error") and not (run_doc or {}).get("error"):
        reasons.append("no run error, expected one (%s)" % expect["error"])


def audit_attack(tmp, kaudit_ids, attack):
    name = attack["name"]
    root = os.path.join(tmp, "root")
    kaudit = os.path.join(tmp, "bin", "kaudit")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.path.join(tmp, "home"), "LANG": "C.UTF-8",
           "TMPDIR": os.path.join(tmp, "tmp"), "KAUDIT_TEST_SECRET": SECRET}
    if os.environ.get("KAUDIT_BWRAP"):  # the GPU machine's carried bubblewrap
        env["KAUDIT_BWRAP"] = os.environ["KAUDIT_BWRAP"]
    limit = attack.get("timeout_s", DEFAULT_LIMIT_S)
    source = generate(tmp, attack)
    source_text = source.decode("utf-8", "surrogateescape")
    batch = os.path.join(tmp, "batches", name)
    later = os.path.join(tmp, "batches", name + ".later")
    honest = attack.get("honest_stays_clean", False)
    reasons, outcome, notes = [], set(), []

    baseline = honest_baseline(tmp, env, root, attack) if honest else None
    before = snapshot([root, os.path.join(tmp, "bin"), os.path.join(tmp, "batches")], {batch, later})
    submissions = [source] + ([HONEST.encode()] if honest else [])
    argv = [kaudit.encode(), b"audit", b"--device", DEVICE.encode(), b"--python", PYTHON.encode(), b"--jobs", b"1", b"-o", batch.encode(),
            b"--problem", attack["problem"].encode()] + submissions
    res = run_kaudit(tmp, env, argv, root, limit, name)
    check_run(res, "audit", reasons, outcome)
    # Anything of the run still alive once kaudit is gone escaped it.
    escaped = processes_of(tmp)
    res_later = None
    if honest:
        # A later batch, while whatever the attack left behind still runs.
        argv2 = [kaudit.encode(), b"audit", b"--device", DEVICE.encode(), b"--python", PYTHON.encode(), b"--jobs", b"1", b"-o", later.encode(),
                 b"--problem", attack["problem"].encode(), HONEST.encode()]
        res_later = run_kaudit(tmp, env, argv2, root, limit, name + ".later")
        check_run(res_later, "later audit", reasons, outcome)
    if escaped:
        reasons.append("%d process(es) of the run outlived kaudit" % len(escaped))
        outcome.add("process escaped")
        deadline = time.time() + 3  # let them do what they came for, as they would
        while time.time() < deadline and processes_of(tmp):
            time.sleep(0.1)
    kill_pids(processes_of(tmp))

    entry = entry_of(batch, source_text)
    folder = key_folder(batch, entry)
    verdict = load_json(os.path.join(folder, "verdict.json")) if folder else None
    run_doc = load_json(os.path.join(folder, "run.json")) if folder else None
    shown = entry or verdict
    if clean_and_correct(entry) or (not entry and clean_and_correct(verdict)):
        reasons.append("fooled: judged correct and clean")
        outcome.add("fooled")
    elif not shown and not outcome & {"crashed", "hung", "parent killed"}:
        reasons.append("no verdict for the attack")
    ids = finding_ids(folder)
    # The verdict again, from the batch folder as it is now.
    if folder and os.path.isdir(folder):
        rv = subprocess.run([kaudit, "verdict", folder], capture_output=True, env=env, timeout=120)
        if rv.returncode in (0, 1):
            recomputed = load_json(os.path.join(folder, "verdict.json"))
            if clean_and_correct(recomputed) and "fooled" not in outcome:
                reasons.append("fooled once recomputed from the batch folder (kaudit verdict): correct and clean")
                outcome.add("fooled on recompute")
        elif rv.returncode != 2:
            reasons.append("kaudit verdict exited with status %d" % rv.returncode)
    check_expectations(attack, shown, ids, run_doc, reasons, outcome)

    if honest:
        for label, b in (("same batch", batch), ("later batch", later)):
            e = entry_of(b, HONEST)
            if describe_verdict(e) != baseline:
                reasons.append("honest submission in the %s framed: %s" % (label, describe_verdict(e)))
                outcome.add("framed honest")
    after = snapshot([root, os.path.join(tmp, "bin"), os.path.join(tmp, "batches")], {batch, later})
    changed = changed_paths(before, after, tmp)
    if changed:
        reasons.append("files outside the batch changed: %s%s" % (", ".join(changed[:4]),
                                                                 " ..." if len(changed) > 4 else ""))
        outcome.add("files changed")
        restore(tmp)
    for b in (batch, later):
        if os.path.isdir(b):
            leaked = secret_files(b)
            if leaked:
                reasons.append("the secret is in %s" % ", ".join(leaked[:3]))
                outcome.add("secret leaked")
            bad = invalid_json_files(b)
            if bad:
                reasons.append("invalid JSON: %s" % ", ".join(bad[:3]))
                outcome.add("invalid evidence")
    summary = "%s; findings: %s; %.0f s" % (describe_verdict(shown), ", ".join(sorted(i for i in ids if i)) or "none",
                                            res["seconds"])
    if run_doc and run_doc.get("error"):
        summary += "; run error: %s" % str(run_doc["error"].get("reason", ""))[:100]
    return reasons, outcome, summary, notes


def check_manifest_ids(attacks, kaudit_ids):
    problems, notes = [], []
    for a in attacks:
        expect = a.get("expect", {})
        for spec in expect.get("findings", []) + expect.get("findings_any", []):
            fid = id_of(spec)
            if pending(spec) and fid in kaudit_ids:
                notes.append("%s: the pending id %s now exists in kaudit: drop \"pending\"" % (a["name"], fid))
            if not pending(spec) and fid not in kaudit_ids and ANALYZER:
                problems.append("%s: finding id %s is not kaudit's (mark it pending?)" % (a["name"], fid))
    return problems, notes


# The device and interpreter the attacks run on: the CPU and Debian's
# python3 in CI; KAUDIT_ATTACKS_DEVICE=cuda and KAUDIT_ATTACKS_PYTHON=python3
# on the GPU machine (tests/gpu/run_all_gpu.sh, step "attacks").
DEVICE = os.environ.get("KAUDIT_ATTACKS_DEVICE", "cpu")
KNOWN_IDS = set()   # the ids the binary reports (kaudit explain --all)
ANALYZER = True     # whether the binary has the analyzer (kaudit analyze)
PYTHON = os.environ.get("KAUDIT_ATTACKS_PYTHON", "/usr/bin/python3")


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    kaudit = os.path.abspath(sys.argv[1])
    root = os.path.abspath(sys.argv[2])
    only = set(sys.argv[3:])
    if subprocess.run([PYTHON, "-c", "import torch"], capture_output=True).returncode != 0:
        log("SKIP: no %s with torch (apt-get install python3-torch): the attacks need the runner" % PYTHON)
        return 77
    with open(os.path.join(root, "tests", "attacks", "manifest.json")) as f:
        manifest = json.load(f)
    attacks = manifest["entries"]
    for a in attacks:
        a.setdefault("name", os.path.splitext(os.path.basename(a["path"]))[0])
    if only:
        attacks = [a for a in attacks if a["name"] in only]
        if not attacks:
            raise SystemExit("run_attacks: no attack named %s" % ", ".join(sorted(only)))
    kaudit_ids = known_ids(kaudit)
    global ANALYZER
    KNOWN_IDS.update(kaudit_ids)
    ANALYZER = "analyze" in subprocess.run([kaudit, "--help"], capture_output=True, text=True).stdout
    id_problems, id_notes = check_manifest_ids(attacks, kaudit_ids)

    tmp = tempfile.mkdtemp(prefix="kaudit-attacks.")
    counts = {"PASS": 0, "FAIL": 0, "KNOWN GAP": 0, "cleared": 0}
    try:
        lay_out(tmp, kaudit, root)
        log("kaudit attack suite: %d attack(s), binary %s, folder %s" % (len(attacks), kaudit, tmp))
        for a in attacks:
            try:
                reasons, outcome, summary, notes = audit_attack(tmp, kaudit_ids, a)
            except Exception as e:  # the suite's own failure is a failure too
                reasons, outcome, summary, notes = ["suite error: %r" % e], {"suite error"}, "", []
                kill_pids(processes_of(tmp))
                restore(tmp)
            gap = a.get("known_gap")
            if not reasons:
                status = "PASS"
                if gap:
                    counts["cleared"] += 1
                    summary += "  (marked known_gap, now passes: clear it)"
            else:
                status = "KNOWN GAP" if gap else "FAIL"
                summary += "  [%s]  %s" % (", ".join(sorted(outcome)) or "caught", "; ".join(reasons))
                if gap:
                    summary += "  -- known gap: %s" % gap
            counts[status] += 1
            log("%-9s %s: %s" % (status, a["name"], summary))
    finally:
        kill_pids(processes_of(tmp))
        if os.environ.get("KAUDIT_ATTACKS_KEEP"):
            log("kept %s" % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    for p in id_problems:
        log("FAIL      manifest: %s" % p)
    for n in id_notes:
        log("NOTE      %s" % n)
    log("%d attack(s): %d passed, %d failed, %d known gap(s)%s" % (
        len(attacks), counts["PASS"], counts["FAIL"], counts["KNOWN GAP"],
        ", %d known gap(s) now pass (clear them in manifest.json)" % counts["cleared"] if counts["cleared"] else ""))
    return 1 if counts["FAIL"] or id_problems else 0


if __name__ == "__main__":
    sys.exit(main())
