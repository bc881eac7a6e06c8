#!/usr/bin/env bash
# The harness's Python (runner/harness/): pyflakes finds no undefined name,
# unused import or redefinition (its CUDA branches never run on a CPU
# machine, so a name broken there would show only on a GPU), and no function
# is longer than 120 lines. Skips (77) where pyflakes3 is not installed
# (scripts/setup.sh installs it).
set -uo pipefail
root=${1:-.}
command -v pyflakes3 >/dev/null || { echo "SKIP: pyflakes3 is not installed (apt-get install pyflakes3)"; exit 77; }
files=("$root"/runner/harness/*.py)
pyflakes3 "${files[@]}" || { echo "FAIL: pyflakes (above)"; exit 1; }
/usr/bin/python3 - "${files[@]}" <<'PY' || exit 1
import ast, sys
limit, long = 120, []
for path in sys.argv[1:]:
    for node in ast.walk(ast.parse(open(path).read(), path)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno + 1 > limit:
            long.append("%s:%d %s (%d lines)" % (path, node.lineno, node.name, node.end_lineno - node.lineno + 1))
if long:
    print("FAIL: harness functions over %d lines:\n  %s" % (limit, "\n  ".join(long)))
    sys.exit(1)
PY
echo "OK: pyflakes finds nothing in ${#files[@]} harness files, and no function is over 120 lines"
