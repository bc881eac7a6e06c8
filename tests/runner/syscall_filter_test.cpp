// The syscall filter every child of a run gets (runner/process/syscall_filter.h),
// loaded in a forked process: what it refuses is refused with the errno
// libraries expect, and what a submission needs still works.
#include "runner/process/syscall_filter.h"

#include <gtest/gtest.h>

#include <errno.h>
#include <sched.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

namespace {

// Runs `probe` in a forked child under the filter; the child's exit code.
int in_filtered_child(int (*probe)()) {
  const pid_t pid = fork();
  if (pid == 0) {
    if (!kaudit::run::load_syscall_filter(kaudit::run::syscall_filter())) _exit(100);
    _exit(probe());
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 200 + WTERMSIG(status);
}

// 0 when the call failed with `want`; otherwise which check did not.
int refused_with(long ret, int want, int which) { return ret == -1 && errno == want ? 0 : which; }

}  // namespace

TEST(SyscallFilter, RefusesWhatOnlyWidensTheKernelsReach) {
  if (!kaudit::run::syscall_filter().available()) GTEST_SKIP() << kaudit::run::syscall_filter().why_not;
  const int code = in_filtered_child([] {
    if (int r = refused_with(unshare(CLONE_NEWUSER), EPERM, 1)) return r;
    if (int r = refused_with(unshare(CLONE_NEWNS), EPERM, 2)) return r;
    if (int r = refused_with(syscall(SYS_bpf, 0, 0, 0), EPERM, 3)) return r;
    if (int r = refused_with(syscall(SYS_userfaultfd, 0), EPERM, 4)) return r;
    if (int r = refused_with(syscall(SYS_io_uring_setup, 1, nullptr), EPERM, 5)) return r;
    if (int r = refused_with(syscall(SYS_ptrace, 16, 0x3FFFFFFF, 0, 0), EPERM, 6)) return r;
    if (int r = refused_with(syscall(SYS_process_vm_readv, getpid(), 0, 0, 0, 0, 0), EPERM, 7)) return r;
    if (int r = refused_with(syscall(SYS_setns, 0, 0), EPERM, 8)) return r;
    if (int r = refused_with(syscall(SYS_clone3, 0, 0), ENOSYS, 9)) return r;
    if (int r = refused_with(syscall(SYS_clone, CLONE_NEWPID | SIGCHLD, 0, 0, 0, 0), EPERM, 10)) return r;
    return 0;
  });
  EXPECT_EQ(code, 0) << "check " << code << " was let through (100: the filter did not load)";
}

TEST(SyscallFilter, WhatASubmissionNeedsStillWorks) {
  if (!kaudit::run::syscall_filter().available()) GTEST_SKIP() << kaudit::run::syscall_filter().why_not;
  const int code = in_filtered_child([] {
    const pid_t child = fork();  // glibc's fork: clone without namespace flags
    if (child < 0) return 1;
    if (child == 0) _exit(7);
    int status = 0;
    if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 7) return 2;
    std::vector<char> buf(1 << 20, 1);  // memory, files, pipes
    int fds[2];
    if (pipe(fds) != 0 || write(fds[1], buf.data(), 100) != 100) return 3;
    return getpid() > 0 ? 0 : 4;
  });
  EXPECT_EQ(code, 0);
}

// What the filter refuses, named for run.json's isolation.
TEST(SyscallFilter, SaysWhatItRefuses) {
  if (!kaudit::run::syscall_filter().available()) GTEST_SKIP() << kaudit::run::syscall_filter().why_not;
  const std::string text = kaudit::run::syscall_filter().description();
  for (const char* name : {"unshare", "bpf", "io_uring_setup", "ptrace", "process_vm_readv", "clone3"})
    EXPECT_NE(text.find(name), std::string::npos) << name << " not in: " << text;
}
