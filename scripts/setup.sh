#!/usr/bin/env bash
# Installs what kaudit needs (Debian 12 packages; the tree-sitter runtime and
# the tree-sitter-python grammar come from npm at configure time), then configures and builds it
# in ./build. Quick when run again: it installs only what is missing and
# the build is incremental.
set -euo pipefail
cd "$(dirname "$0")/.."

# libclang-rt-19-dev: libFuzzer and the sanitizers' runtimes (tests/fuzz/run_fuzz.sh).
# clang-tidy-19: scripts/tidy.sh (the checks in .clang-tidy).
# slurm-wlm: slurmctld, slurmd and the clients for the one-node Slurm of
# tests/audit/slurm_array_test.sh (auth/none: munge comes along but is not used).
packages=(cmake ninja-build g++ pkg-config clang-19 libclang-19-dev llvm-19-dev libclang-rt-19-dev clang-tidy-19
          nlohmann-json3-dev libcli11-dev libyaml-cpp-dev libgtest-dev libgmock-dev libbenchmark-dev
          libicu-dev python3-torch chromium universal-ctags bubblewrap libseccomp-dev slurm-wlm)
command -v npm >/dev/null 2>&1 || packages+=(npm)
# The SARIF files validated against the SARIF 2.1.0 schema, formats checked
# (tests/audit/audit_ci_test.sh).
packages+=(python3-jsonschema python3-rfc3987)
# pyflakes over the harness (tests/style/harness_pyflakes.sh): names its CUDA branches use.
packages+=(pyflakes3)
# The Python module (python/): pybind11 and the Python headers; cpack -G DEB
# (tests/install/install_test.sh) runs dpkg-shlibdeps, from dpkg-dev.
packages+=(pybind11-dev python3-dev dpkg-dev)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=""
  [[ $(id -u) -ne 0 ]] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The tracer needs the CUDA toolkit (CUPTI); without it kaudit builds without the tracer.
# KAUDIT_CUDA_ROOT (default /usr/local/cuda) says where the toolkit is.
cuda_root=${KAUDIT_CUDA_ROOT:-/usr/local/cuda}
tracer=ON
if [[ ! -f $cuda_root/include/cupti.h && ! -f $cuda_root/extras/CUPTI/include/cupti.h ]]; then
  echo "setup: no CUDA toolkit with CUPTI at $cuda_root: building without the tracer"
  tracer=OFF
fi

# On CI (CI set and not empty) warnings are errors.
werror=OFF
[[ -n ${CI:-} ]] && werror=ON

if [[ ! -f build/build.ninja || $werror == ON ]]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DKAUDIT_BUILD_TRACER=$tracer \
    -DKAUDIT_CUDA_ROOT="$cuda_root" -DKAUDIT_WERROR=$werror >/dev/null
fi
cmake --build build -j "$(nproc)"
