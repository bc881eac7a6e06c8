#!/usr/bin/env bash
# `cmake --install` into a temporary prefix, then the installed kaudit and
# Python module used from another folder (/): explain, analyze, import, and
# (where Debian's python3 has torch and the sandbox can be made) one CPU
# audit, which runs the installed harness. Then `cpack -G DEB` and the
# package's files and Depends.
#   tests/install/install_test.sh BUILD_DIR REPOSITORY_ROOT PYTHON PYTHON_DIR
# PYTHON: the Python the module was built for; PYTHON_DIR: where it is
# installed under the prefix, or "" when the module is not built.
set -uo pipefail
build=$(realpath "$1")
root=$(realpath "$2")
python="$3"
pydir="$4"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix="$tmp/prefix"
fail() { echo "FAIL: $*"; tail -20 "$tmp"/log* 2>/dev/null; exit 1; }

cmake --install "$build" --prefix "$prefix" > "$tmp/log.install" 2>&1 || fail "cmake --install"
for f in bin/kaudit share/kaudit/harness/kaudit_harness.py share/kaudit/harness/kaudit_harness_protocol.py \
         share/kaudit/harness/kaudit_harness_submission.py share/kaudit/rules/packs/default.json \
         share/kaudit/rules/hardware/h200.json share/kaudit/rules/kernel_families.json share/doc/kaudit/README.md; do
  [[ -f "$prefix/$f" ]] || fail "$f was not installed"
done
if [[ -f "$build/libkaudit_tracer.so" ]]; then
  [[ -f "$prefix/lib/kaudit/libkaudit_tracer.so" ]] || fail "the tracer was built but not installed in lib/kaudit"
fi
module=""
if [[ -n "$pydir" ]]; then
  module=$(ls "$prefix/$pydir"/kaudit.*.so 2>/dev/null)
  [[ -n "$module" ]] || fail "the Python module was not installed in $pydir"
fi

cd / || exit 1
"$prefix/bin/kaudit" explain banned-call > "$tmp/log.explain" 2>&1 || fail "kaudit explain from /"
head -1 "$tmp/log.explain" | grep -q '^banned-call (cheat' || fail "kaudit explain printed $(head -1 "$tmp/log.explain")"
"$prefix/bin/kaudit" analyze --format json --problem "$root/kernels/problems/topk" \
  "$root/kernels/corpus/topk/cheat_sort_method_alias.py" > "$tmp/analysis.json" 2> "$tmp/log.analyze"
[[ $? == 1 ]] || fail "kaudit analyze of a cheat from / did not exit 1"
grep -q '"banned-call"' "$tmp/analysis.json" || fail "kaudit analyze from / did not find banned-call"

if [[ -n "$module" ]]; then
  PYTHONPATH="$prefix/$pydir" "$python" - "$prefix" > "$tmp/log.python" 2>&1 <<'PY' || fail "the installed Python module"
import sys
import kaudit
assert kaudit.__file__.startswith(sys.argv[1] + "/"), kaudit.__file__
assert kaudit.explain("banned-call").startswith("banned-call (cheat"), kaudit.explain("banned-call")
PY
fi

# A run needs the harness: the installed kaudit finds it under share/kaudit.
if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  "$prefix/bin/kaudit" audit --device cpu -q -o "$tmp/audit" --problem "$root/tests/runner/problems/linear_relu" \
    "$root/tests/runner/solutions/clean.py" > "$tmp/log.audit" 2>&1
  if grep -q "cannot isolate" "$tmp/log.audit"; then
    echo "SKIP: the CPU audit (no sandbox here)"
  else
    grep -q '"result": "correct"' "$tmp/audit/solutions__clean/verdict.json" || fail "the installed kaudit's CPU run"
  fi
else
  echo "SKIP: the CPU audit (no torch for /usr/bin/python3)"
fi

# The Debian package.
if command -v dpkg-deb >/dev/null && command -v dpkg-shlibdeps >/dev/null; then
  (cd "$build" && cpack -G DEB -B "$tmp/deb") > "$tmp/log.cpack" 2>&1 || fail "cpack -G DEB"
  deb=$(ls "$tmp"/deb/kaudit_*_*.deb 2>/dev/null)
  [[ -n "$deb" ]] || fail "no kaudit_<version>_<arch>.deb"
  depends=$(dpkg-deb -f "$deb" Depends)
  for d in libyaml-cpp bubblewrap python3 libicu; do
    [[ "$depends" == *"$d"* ]] || fail "the package does not depend on $d: $depends"
  done
  files=$(dpkg-deb -c "$deb")
  want=(./usr/bin/kaudit ./usr/share/kaudit/harness/kaudit_harness.py)
  [[ -n "$module" ]] && want+=("./usr/$pydir/$(basename "$module")")
  for f in "${want[@]}"; do
    grep -qF " $f" <<<"$files" || fail "the package lacks $f"
  done
else
  echo "SKIP: the Debian package (no dpkg-dev)"
fi
echo "kaudit installs, and runs from any folder"
