// The system calls no child of a run may make (docs/threat-model.md,
// "Isolation"): those a benchmark submission never needs and that only widen
// what it can reach of the kernel — namespaces of its own, eBPF, io_uring,
// userfaultfd, keyrings, tracing or reading other processes, loading modules,
// mounting, and pushing input into a terminal. A refused call fails with
// EPERM (clone3 with ENOSYS, so that the C library falls back to clone,
// where the namespace flags are visible); system calls of another
// architecture (32-bit calls from a 64-bit process) end the process.
// Built with libseccomp, once per process.
#pragma once

#include <string>
#include <vector>

namespace kaudit::run {

struct SyscallFilter {
  std::vector<unsigned char> program;  // classic BPF (struct sock_filter[]), as prctl and bwrap's --seccomp take it
  std::vector<std::string> refused;    // the system calls refused, by name
  std::string why_not;                 // when there is no filter: why
  bool available() const { return !program.empty(); }
  // One line for run.json's isolation: what is refused.
  std::string description() const;
};

const SyscallFilter& syscall_filter();

// Loads `filter` into the calling process, after setting no-new-privileges:
// only system calls, so that a forked child can call it before exec. False
// when the kernel refused.
bool load_syscall_filter(const SyscallFilter& filter);

// The file descriptor number at which a child that is bubblewrap finds the
// filter's program (its `--seccomp` argument).
inline constexpr int kSyscallFilterFd = 4;

}  // namespace kaudit::run
