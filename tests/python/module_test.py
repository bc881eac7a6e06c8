"""The Python module kaudit (python/kaudit_module.cpp) against the kaudit command.

Run by Debian's python3 with PYTHONPATH at the build folder:
    module_test.py KAUDIT_EXECUTABLE REPOSITORY_ROOT
Each check compares what the module returns with what the command prints or
writes for the same request: analyze's document, explain's text, the verdict
documents of an audit, and the messages of errors. The audit runs one small
CPU case when Debian's python3 has torch and the sandbox can be made.
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

import kaudit

KAUDIT, ROOT = sys.argv[1], sys.argv[2]
os.chdir(ROOT)
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL: " + what)


def cli(*args):
    return subprocess.run([KAUDIT, *args], capture_output=True, text=True)


def without_seconds(doc):
    """The document without its timings (`seconds`), which differ run to run."""
    if isinstance(doc, dict):
        return {k: without_seconds(v) for k, v in doc.items() if k != "seconds"}
    if isinstance(doc, list):
        return [without_seconds(v) for v in doc]
    return doc


def raises(kind, call):
    """The exception `call` raised, which must be a `kind`; None otherwise."""
    try:
        call()
    except kind as e:
        return e
    except Exception as e:  # noqa: BLE001 - reported as the wrong kind
        check(False, "%s raised %s (%s), want %s" % (call, type(e).__name__, e, kind.__name__))
        return None
    check(False, "%s raised nothing, want %s" % (call, kind.__name__))
    return None


def cli_error(result, command):
    """The message after `kaudit COMMAND: ` on the command's stderr."""
    prefix = "kaudit %s: " % command
    line = result.stderr.strip().splitlines()[-1] if result.stderr.strip() else ""
    return line[len(prefix):] if line.startswith(prefix) else line


# The version and where the module was loaded from.
check(cli("--version").stdout.strip() == "kaudit " + kaudit.__version__,
      "__version__ %r is not kaudit --version's" % kaudit.__version__)
check(issubclass(kaudit.Error, RuntimeError) and issubclass(kaudit.UsageError, ValueError)
      and issubclass(kaudit.UsageError, kaudit.Error) and issubclass(kaudit.AuditFailed, kaudit.Error),
      "the exception classes")

# analyze: kaudit analyze --format json's document, as a dict.
source, problem = "kernels/corpus/topk/cheat_sort_method_alias.py", "kernels/problems/topk"
doc = kaudit.analyze(source, problem)
want = json.loads(cli("analyze", "--format", "json", source, "--problem", problem).stdout)
check(without_seconds(doc) == without_seconds(want), "analyze differs from kaudit analyze --format json")
ids = {f["id"] for f in doc["files"][0]["findings"]}
check("banned-call" in ids, "analyze found %s, want banned-call" % sorted(ids))
folder = kaudit.analyze(["tests/runner/solutions"], rules="rules/packs/default.json", no_cxx=True)
want = json.loads(cli("analyze", "--format", "json", "--no-cxx", "--rules", "rules/packs/default.json",
                      "tests/runner/solutions").stdout)
check(len(folder["files"]) > 3 and without_seconds(folder) == without_seconds(want),
      "analyze of a folder differs from the command's")

# explain: the text kaudit explain prints.
check(kaudit.explain("banned-call") == cli("explain", "banned-call").stdout, "explain differs from kaudit explain")

# Errors: the exception kind, and the command's message.
e = raises(ValueError, lambda: kaudit.explain("no-such-id"))
check(e is None or (isinstance(e, kaudit.Error) and str(e) == cli_error(cli("explain", "no-such-id"), "explain")),
      "explain of an unknown id: %s" % e)
e = raises(kaudit.Error, lambda: kaudit.analyze("no/such/file.py"))
check(e is None or (not isinstance(e, ValueError)
                    and str(e) == cli_error(cli("analyze", "no/such/file.py"), "analyze")),
      "analyze of a missing file: %s" % e)
e = raises(kaudit.Error, lambda: kaudit.analyze(source, "no/such/problem"))
check(e is None or str(e) == cli_error(cli("analyze", source, "--problem", "no/such/problem"), "analyze"),
      "analyze with a missing problem: %s" % e)
sub, lin = "tests/runner/solutions/clean.py", "tests/runner/problems/linear_relu"
e = raises(TypeError, lambda: kaudit.audit([sub], lin, device="none", jobz=2))
check(e is None or "jobz" in str(e), "an unknown option: %s" % e)
e = raises(TypeError, lambda: kaudit.audit([sub], lin, device="none", jobs="2"))
for args, flags in (({"jobs": 0}, ["--jobs", "0"]), ({"trials": 0}, ["--trials", "0"]),
                    ({"max_tasks": 0}, ["--max-tasks", "0"]),
                    ({"fail_on": "cheat,bogus"}, ["--fail-on", "cheat,bogus"])):
    e = raises(kaudit.UsageError, lambda: kaudit.audit([sub], lin, device="none", **args))
    got = cli("audit", "--device", "none", "--problem", lin, sub, *flags)
    check(e is None or (got.returncode == 2 and str(e) == cli_error(got, "audit")),
          "%s: %s, the command said %r (%d)" % (args, e, got.stderr, got.returncode))
e = raises(kaudit.UsageError, lambda: kaudit.audit([sub], lin, device="gpu"))

# audit: the verdict documents the command writes, in the order given.
with tempfile.TemporaryDirectory() as tmp:
    subs = ["tests/runner/solutions/cache_identity.py", sub]
    verdicts = kaudit.audit(subs, lin, device="none", output=tmp + "/py", quiet=True)
    got = cli("audit", "--device", "none", "--problem", lin, *subs, "-o", tmp + "/cli")
    check(got.returncode == 0, "kaudit audit --device none: %s" % got.stderr)
    written = [json.load(open(os.path.join(tmp, "cli", key, "verdict.json")))
               for key in ("solutions__cache_identity", "solutions__clean")]
    check(verdicts == written, "audit's verdicts differ from the command's verdict.json files")
    check([v["submission"] for v in verdicts] == subs, "audit's verdicts are not in the order given")
    # The CI outputs, as the command's --sarif and --junit write them.
    kaudit.audit(subs, lin, device="none", output=tmp + "/py", quiet=True,
                 sarif=tmp + "/py.sarif", junit=tmp + "/py.xml")
    sarif = json.load(open(tmp + "/py.sarif"))
    check(sarif.get("version") == "2.1.0" and sarif["runs"][0]["results"], "audit(sarif=...) wrote no SARIF results")
    junit = open(tmp + "/py.xml").read()
    check(junit.count("<testcase ") == len(subs), "audit(junit=...) did not write one testcase per submission")
    e = raises(kaudit.AuditFailed, lambda: kaudit.audit(subs, lin, device="none", output=tmp + "/py",
                                                        quiet=True, fail_on=["not-run"]))
    check(e is None or e.verdicts == verdicts, "AuditFailed.verdicts")

    have_torch = subprocess.run(["/usr/bin/python3", "-c", "import torch"], capture_output=True).returncode == 0
    cpu_runs = False  # torch, and a sandbox
    if not have_torch:
        print("SKIP: the CPU audit (no torch for /usr/bin/python3)")
    else:
        try:
            verdicts = kaudit.audit([sub], lin, device="cpu", output=tmp + "/cpu", quiet=True)
        except kaudit.Error as e:
            check("cannot isolate" in str(e), "the CPU audit failed: %s" % e)
            print("SKIP: the CPU audit (%s)" % e)
        else:
            cpu_runs = True
            # The result only: the integrity of a clean submission timed on a
            # loaded machine is the runner's business (tests/audit).
            check(len(verdicts) == 1 and verdicts[0]["result"] == "correct",
                  "the CPU audit of clean.py: %s" % json.dumps(verdicts)[:2000])
            check(os.path.isfile(os.path.join(tmp, "cpu", "solutions__clean", "run.json")), "no run.json")



def harness_under(pid):
    """Whether a harness process runs below `pid` (a run has started)."""
    parents = {}
    for p in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = open("/proc/%s/stat" % p).read()
            cmd = open("/proc/%s/cmdline" % p, "rb").read()
        except OSError:
            continue
        parents[int(p)] = (int(stat[stat.rindex(")") + 2:].split()[1]), b"kaudit_harness" in cmd)
    for p, (_, is_harness) in parents.items():
        while is_harness and p in parents:
            if p == pid:
                return True
            p = parents[p][0]
    return False


# Ctrl-C during an audit (a submission that hangs in its first call) stops it
# as it stops kaudit audit, and raises KeyboardInterrupt.
if cpu_runs:
    with tempfile.TemporaryDirectory() as tmp:
        child = subprocess.Popen(
            [sys.executable, "-c", "import kaudit, sys\n"
             "try:\n"
             "    kaudit.audit(['tests/runner/solutions/hang.py'], 'tests/runner/problems/linear_relu',\n"
             "                 device='cpu', output=sys.argv[1], quiet=True)\n"
             "except KeyboardInterrupt as e:\n"
             "    print('KeyboardInterrupt:', e)\n", tmp + "/batch"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(1500):  # five minutes at most, for the run to start
            if harness_under(child.pid) or child.poll() is not None:
                break
            time.sleep(0.2)
        started = harness_under(child.pid)
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=300)
        check(started, "the audit of hang.py did not start its run: %r %r" % (out, err[-2000:]))
        check("KeyboardInterrupt: interrupted by SIGINT" in out, "Ctrl-C during an audit: %r %r" % (out, err[-2000:]))

if failures:
    sys.exit(1)
print("the Python module agrees with the kaudit command")
