// What /proc says the channel descriptor of a process is (runner/process/channel_holder.h).
// Each case forks a process that holds a pipe at descriptor 3 the way the
// harness does, changes it the way a case needs, and reads it from outside.
#include "runner/process/channel_holder.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>

using kaudit::run::ChannelHolder;
using kaudit::run::process_ending;
using kaudit::run::read_channel_holder;

namespace {

constexpr int kFd = 3;

// A process holding the write end of a fresh pipe at descriptor 3. It runs
// `change` (the descriptor as a case wants it), tells the test it is ready,
// then waits until the test writes to its stdin-like pipe, unless `exit_now`.
struct Holder {
  pid_t pid = -1;
  unsigned long long inode = 0;
  int release_fd = -1;

  Holder(const std::function<void()>& change, bool exit_now) {
    int chan[2], ready[2], release[2];
    if (pipe(chan) != 0 || pipe(ready) != 0 || pipe(release) != 0) return;
    struct stat st {};
    fstat(chan[1], &st);
    inode = st.st_ino;
    pid = fork();
    if (pid == 0) {
      dup2(chan[1], kFd);
      change();
      if (exit_now) _exit(0);
      char c = 1;
      if (write(ready[1], &c, 1) != 1) _exit(1);
      if (::read(release[0], &c, 1) < 0) _exit(1);
      _exit(0);
    }
    close(chan[0]);
    close(chan[1]);
    close(ready[1]);
    close(release[0]);
    release_fd = release[1];
    char c;
    if (!exit_now && ::read(ready[0], &c, 1) != 1) ADD_FAILURE() << "the holder did not start";
    close(ready[0]);
  }
  // The process has exited but is not reaped: a zombie, as the harness is
  // between its last message and the runner's wait.
  void await_zombie() const {
    siginfo_t info{};
    waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT);
  }
  ~Holder() {
    if (pid <= 0) return;
    kill(pid, SIGKILL);
    close(release_fd);
    waitpid(pid, nullptr, 0);
  }
  ChannelHolder read() const { return read_channel_holder(pid, kFd, inode); }
};

}  // namespace

TEST(ChannelHolder, ThePipeItselfIsYes) {
  Holder h([] {}, false);
  EXPECT_EQ(h.read(), ChannelHolder::yes);
  EXPECT_FALSE(process_ending(h.pid));
}

// The class of the H200's false `harness-tampered` on clean Triton runs: the
// harness wrote its last messages and exited; the runner read them after, when
// /proc still listed the process but its descriptors were released.
TEST(ChannelHolder, AnExitedUnreapedHarnessIsGoneNotASwap) {
  Holder h([] {}, true);
  h.await_zombie();
  EXPECT_TRUE(process_ending(h.pid));
  EXPECT_EQ(h.read(), ChannelHolder::gone);
}

TEST(ChannelHolder, AnotherPipeAtTheDescriptorIsAnotherFile) {
  Holder h(
      [] {
        int other[2];
        if (pipe(other) == 0) dup2(other[1], kFd);
      },
      false);
  EXPECT_EQ(h.read(), ChannelHolder::other_file);
}

TEST(ChannelHolder, AClosedDescriptorIsClosedNotAnotherFile) {
  Holder h([] { close(kFd); }, false);
  EXPECT_EQ(h.read(), ChannelHolder::closed);
}

TEST(ChannelHolder, AProcessThatIsNotThereIsGone) {
  pid_t pid = -1;
  {
    Holder h([] {}, true);
    pid = h.pid;
  }  // reaped
  EXPECT_TRUE(process_ending(pid));
  EXPECT_EQ(read_channel_holder(pid, kFd, 1), ChannelHolder::gone);
}
