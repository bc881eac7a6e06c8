// A child's cgroup (runner/process/task_limit.h): the limit holds for what the child
// starts, and whatever is left in it, a daemon in a session of its own
// included, ends when the cgroup does.
#include "runner/process/task_limit.h"

#include <gtest/gtest.h>

#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <iostream>
#include <string>

namespace {

// Forks a child that joins `limit`'s cgroup, then runs `body` and exits with its code.
pid_t in_cgroup(const kaudit::run::TaskLimit& limit, int (*body)(int), int arg) {
  const char* join = limit.join_file().c_str();
  const pid_t pid = fork();
  if (pid == 0) _exit(kaudit::run::join_cgroup(join) ? body(arg) : 100);
  return pid;
}

bool gone_or_zombie(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return true;
  const auto close = stat.rfind(')');
  return close != std::string::npos && stat.compare(close + 2, 1, "Z") == 0;
}

int exit_code(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 200;
}

}  // namespace

TEST(TaskLimit, ForksPastTheLimitAreRefused) {
  const auto& support = kaudit::run::task_limit_support();
  if (!support.available) GTEST_SKIP() << support.why_not;
  const kaudit::run::TaskLimit limit(support, 8);
  const pid_t pid = in_cgroup(limit, [](int) {
    int started = 0;
    for (int k = 0; k < 20; ++k) {
      const pid_t c = fork();
      if (c == 0) {
        pause();
        _exit(0);
      }
      if (c < 0) return errno == EAGAIN && started == 7 ? 0 : 1;  // this process and 7 children
      ++started;
    }
    return 2;  // all 20 started: no limit
  }, 0);
  EXPECT_EQ(exit_code(pid), 0);
}

TEST(TaskLimit, WhatIsLeftEndsWithTheCgroup) {
  const auto& support = kaudit::run::task_limit_support();
  if (!support.available) GTEST_SKIP() << support.why_not;
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  pid_t daemon = 0;
  {
    const kaudit::run::TaskLimit limit(support, 64);
    // The child starts a daemon in a session of its own, tells its pid, and exits.
    const pid_t pid = in_cgroup(limit, [](int fd) {
      const pid_t d = fork();
      if (d == 0) {
        setsid();
        if (fork() == 0) {
          const pid_t me = getpid();
          (void)!write(fd, &me, sizeof me);
          for (;;) pause();
        }
        _exit(0);
      }
      waitpid(d, nullptr, 0);
      return 0;
    }, pipe_fds[1]);
    EXPECT_EQ(exit_code(pid), 0);
    ASSERT_EQ(read(pipe_fds[0], &daemon, sizeof daemon), static_cast<ssize_t>(sizeof daemon));
    EXPECT_EQ(kill(daemon, 0), 0) << "the daemon runs while the cgroup lives";
  }
  // Killed, then reaped by init: until reaped it is a zombie.
  bool ended = false;
  for (int k = 0; k < 200 && !(ended = gone_or_zombie(daemon)); ++k) usleep(10000);
  EXPECT_TRUE(ended) << "the daemon outlived its cgroup";
  ::close(pipe_fds[0]);
  ::close(pipe_fds[1]);
}

// Where no cgroup can hold the limit, RLIMIT_NPROC does for sandboxed
// children: the kernel counts it per user in each user namespace, so a
// run's sandbox has a count of its own. Wherever a user namespace can be
// made here, the trial must find the limit enforced.
TEST(TaskLimit, RlimitNprocHoldsInAUserNamespaceOfItsOwn) {
  // The kernel exempts the processes of uid 0 (INIT_USER) from RLIMIT_NPROC,
  // in any user namespace: as root the trial must find it not enforced.
  if (geteuid() == 0) {
    EXPECT_FALSE(kaudit::run::process_limit_support().available);
    GTEST_SKIP() << "as root RLIMIT_NPROC binds nobody: " << kaudit::run::process_limit_support().why_not;
  }
  const pid_t pid = fork();
  if (pid == 0) _exit(unshare(CLONE_NEWUSER) == 0 ? 0 : 1);
  if (exit_code(pid) != 0) GTEST_SKIP() << "no user namespace can be made here";
  const auto& support = kaudit::run::process_limit_support();
  EXPECT_TRUE(support.available) << support.why_not;
}

// Which limit holds on this machine, or why none does, in words a run's
// isolation repeats (the GPU machine's log shows this line).
TEST(TaskLimit, TheMachinesLimitIsNamedOrExplained) {
  const auto& support = kaudit::run::task_limit_support();
  if (support.available) {
    EXPECT_FALSE(support.kind.empty());
    EXPECT_TRUE(support.why_not.empty()) << support.why_not;
    std::cout << "task limit: " << support.kind << " under " << support.parent << "\n";
  } else {
    EXPECT_FALSE(support.why_not.empty());
    std::cout << "task limit: no cgroup: " << support.why_not << "\n";
  }
}
