#!/usr/bin/env bash
# Fills .device-deps (an ignored folder that GPU calls carry) with what the GPU
# machine lacks and cannot install, taken from this Debian machine's packages
# (scripts/setup.sh installs them): CLI11's headers, bubblewrap, and
# libseccomp's headers and library (the children's syscall filter).
#   tests/gpu/make_device_deps.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
d=.device-deps
mkdir -p "$d/bin" "$d/include" "$d/lib"
cp -r /usr/include/CLI "$d/include/"
cp /usr/bin/bwrap "$d/bin/"
cp /usr/include/seccomp.h /usr/include/seccomp-syscalls.h "$d/include/"
cp -P /usr/lib/x86_64-linux-gnu/libseccomp.so* "$d/lib/"
du -sh "$d"
