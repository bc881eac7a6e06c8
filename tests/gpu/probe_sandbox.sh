#!/usr/bin/env bash
# One-off: which isolation features the GPU machine offers.
shopt -s nullglob
B=${BWRAP:-.device-deps/bin/bwrap}
echo "== id/uname"; id; uname -a; grep -E 'Seccomp|NoNewPrivs|CapEff' /proc/self/status
echo "== dmesg-ish"; cat /proc/version; ls /sys/kernel/security 2>&1 | head; cat /sys/kernel/security/lsm 2>&1
echo "== userns"; cat /proc/sys/user/max_user_namespaces 2>&1; cat /proc/sys/kernel/unprivileged_userns_clone 2>&1
unshare --user --map-root-user --mount --pid --fork --net true && echo unshare-userns-ok
unshare --mount --pid --fork --net true && echo unshare-root-ns-ok
echo "== bwrap"; ldd $B; $B --version
$B --unshare-all --die-with-parent --new-session --uid 65534 --gid 65534 --ro-bind / / --proc /proc --dev /dev true && echo bwrap-basic-ok
echo "== python"; python3 -c "import sys,json; print(json.dumps([sys.executable, sys.prefix, sys.base_prefix]+sys.path))"
python3 -c "import torch, os; print(torch.__file__, torch.version.cuda)"
ls -la /dev/nvidia* 2>&1 | head; ls /dev/dri 2>&1 | head -2; ls /usr/local | head -20; ls / 
ldconfig -p | grep -E 'libcuda\.so' | head -3
dev_args=(); for d in /dev/nvidia*; do dev_args+=(--dev-bind "$d" "$d"); done
[[ -d /dev/nvidia-caps ]] && dev_args+=(--dev-bind /dev/nvidia-caps /dev/nvidia-caps)
mkdir -p /tmp/sbx/work
cat > /tmp/sbx/work/t.py <<'PY'
import os, time, torch
t0=time.time()
x = torch.randn(1024, 1024, device="cuda"); y = (x @ x).sum().item(); print("cuda ok", y != 0, torch.cuda.get_device_name(0), round(time.time()-t0,2))
import triton, triton.language as tl
@triton.jit
def k(X, N: tl.constexpr):
    i = tl.arange(0, N); tl.store(X + i, tl.load(X + i) * 2)
z = torch.ones(128, device="cuda"); k[(1,)](z, 128); torch.cuda.synchronize(); print("triton ok", z[0].item())
print("uid", os.getuid(), "pid", os.getpid(), "ppid", os.getppid())
try:
    os.kill(1, 0); print("can signal pid1")
except Exception as e: print("kill", e)
PY
for mode in userns-uid userns plain; do
  extra=(--unshare-all); [[ $mode == userns-uid ]] && extra+=(--uid 65534 --gid 65534)
  [[ $mode == plain ]] && extra=(--unshare-pid --unshare-net --unshare-ipc)
  echo "== bwrap cuda $mode"
  timeout 300 $B "${extra[@]}" --die-with-parent --new-session --ro-bind / / --proc /proc --dev /dev "${dev_args[@]}" \
    --tmpfs /tmp --bind /tmp/sbx/work /tmp/sbx/work --chdir /tmp/sbx/work \
    --setenv TRITON_CACHE_DIR /tmp/sbx/work/tc --setenv HOME /tmp/sbx/work \
    python3 t.py 2>&1 | tail -8
  echo "rc=${PIPESTATUS[0]}"
done
echo "== landlock"; python3 - <<'PY'
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
# landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION=1)
r = libc.syscall(444, None, 0, 1); print("landlock abi", r, os.strerror(ctypes.get_errno()) if r < 0 else "")
PY
echo "== cgroups (runner/process/task_limit.h)"; cat /proc/self/cgroup; grep cgroup /proc/self/mountinfo
echo "== prlimit"; prlimit --pid $$ | head -20
df -h /tmp | tail -1; nproc; free -g | head -2
