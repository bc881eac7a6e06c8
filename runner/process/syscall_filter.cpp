#include "runner/process/syscall_filter.h"

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef KAUDIT_HAVE_SECCOMP
#include <seccomp.h>
#endif

#include <memory>

namespace kaudit::run {

namespace {

// Refused outright. Most need a capability the sandbox already drops; the
// filter holds where it is missing (--unsafe-no-sandbox) and keeps the
// kernel's code behind them out of reach in any case.
const char* const kRefused[] = {
    // namespaces of its own (clone's flags below)
    "unshare", "setns",
    // kernel interfaces with a history of escapes, or that read other processes
    "bpf", "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register", "ptrace", "process_vm_readv",
    "process_vm_writev", "kcmp", "keyctl", "add_key", "request_key",
    // the machine's own state
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "reboot", "swapon", "swapoff",
    "acct", "syslog", "quotactl", "settimeofday", "clock_settime", "clock_adjtime", "iopl", "ioperm",
    // file systems and handles
    "mount", "umount2", "pivot_root", "fsopen", "fsmount", "fsconfig", "fspick", "move_mount", "open_tree",
    "mount_setattr", "open_by_handle_at", "name_to_handle_at", "lookup_dcookie", "vhangup"};

// clone's flags that make a namespace.
constexpr unsigned long kNamespaceFlags[] = {CLONE_NEWNS,  CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC,
                                             CLONE_NEWUSER, CLONE_NEWPID,   CLONE_NEWNET, 0x00000080 /* NEWTIME */};

#ifdef KAUDIT_HAVE_SECCOMP
SyscallFilter build() {
  SyscallFilter f;
  std::unique_ptr<void, void (*)(scmp_filter_ctx)> ctx(seccomp_init(SCMP_ACT_ALLOW), seccomp_release);
  if (!ctx) {
    f.why_not = "libseccomp could not start a filter";
    return f;
  }
  const auto refuse = [&](const char* name, int err, unsigned n, const scmp_arg_cmp* cmp) {
    const int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR) return true;  // not a system call of this architecture
    return seccomp_rule_add_array(ctx.get(), SCMP_ACT_ERRNO(err), nr, n, cmp) == 0;
  };
  bool ok = true;
  for (const char* name : kRefused) ok = ok && refuse(name, EPERM, 0, nullptr);
  for (const unsigned long flag : kNamespaceFlags) {
    const scmp_arg_cmp has_flag = SCMP_A0(SCMP_CMP_MASKED_EQ, flag, flag);
    ok = ok && refuse("clone", EPERM, 1, &has_flag);
  }
  ok = ok && refuse("clone3", ENOSYS, 0, nullptr);
  // Typing into the terminal kaudit was started from (TIOCSTI), or into a console (TIOCLINUX).
  for (const unsigned long request : {static_cast<unsigned long>(TIOCSTI), static_cast<unsigned long>(TIOCLINUX)}) {
    const scmp_arg_cmp is_request = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xFFFFFFFFul, request);
    ok = ok && refuse("ioctl", EPERM, 1, &is_request);
  }
  if (!ok) {
    f.why_not = "libseccomp refused a rule of the filter";
    return f;
  }
  // The program, as the kernel takes it: exported into a memory file and read back.
  const int fd = memfd_create("kaudit-syscall-filter", MFD_CLOEXEC);
  if (fd < 0 || seccomp_export_bpf(ctx.get(), fd) != 0) {
    if (fd >= 0) close(fd);
    f.why_not = "libseccomp could not export the filter";
    return f;
  }
  const off_t size = lseek(fd, 0, SEEK_END);
  f.program.resize(size > 0 ? static_cast<std::size_t>(size) : 0);
  if (size <= 0 || pread(fd, f.program.data(), f.program.size(), 0) != size) {
    f.program.clear();
    f.why_not = "libseccomp's exported filter could not be read back";
  }
  close(fd);
  for (const char* name : kRefused) f.refused.emplace_back(name);
  f.refused.insert(f.refused.end(), {"clone with a namespace flag", "clone3", "ioctl TIOCSTI and TIOCLINUX"});
  return f;
}
#else
SyscallFilter build() {
  SyscallFilter f;
  f.why_not = "kaudit was built without libseccomp (Debian: libseccomp-dev)";
  return f;
}
#endif

}  // namespace

std::string SyscallFilter::description() const {
  std::string names;
  for (const auto& n : refused) names += (names.empty() ? "" : ", ") + n;
  return "seccomp filter: refuses " + names + "; 32-bit system calls end the process";
}

namespace {

// The filter, where a forked process can load it (a kernel or a sandbox of
// kaudit's own may refuse seccomp).
SyscallFilter build_and_try() {
  SyscallFilter f = build();
  if (!f.available()) return f;
  const pid_t pid = fork();
  if (pid == 0) _exit(load_syscall_filter(f) ? 0 : 1);
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    f.program.clear();
    f.why_not = "this kernel refused to load the seccomp filter";
  }
  return f;
}

}  // namespace

const SyscallFilter& syscall_filter() {
  static const SyscallFilter filter = build_and_try();
  return filter;
}

bool load_syscall_filter(const SyscallFilter& filter) {
  if (!filter.available()) return false;
  sock_fprog prog{};
  prog.len = static_cast<unsigned short>(filter.program.size() / sizeof(sock_filter));
  prog.filter = reinterpret_cast<sock_filter*>(const_cast<unsigned char*>(filter.program.data()));
  return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 && prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0;
}

}  // namespace kaudit::run
