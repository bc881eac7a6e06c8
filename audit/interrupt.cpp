#include "audit/interrupt.h"

#include "runner/process/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>

namespace kaudit::audit {

SignalWatch::SignalWatch() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  if (pthread_sigmask(SIG_BLOCK, &set, &old_mask_) != 0) throw std::runtime_error("cannot block SIGINT and SIGTERM");
  signal_fd_ = signalfd(-1, &set, SFD_CLOEXEC);
  if (signal_fd_ < 0 || pipe2(stop_, O_CLOEXEC) != 0) {
    const std::string why = strerror(errno);
    if (signal_fd_ >= 0) close(signal_fd_);
    pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
    throw std::runtime_error("cannot watch SIGINT and SIGTERM: " + why);
  }
  thread_ = std::thread([this] { watch(); });
}

SignalWatch::~SignalWatch() {
  (void)!write(stop_[1], "x", 1);
  thread_.join();
  close(stop_[0]);
  close(stop_[1]);
  close(signal_fd_);
  // A signal that came after the watch stopped is delivered now, as usual.
  pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
}

void SignalWatch::watch() {
  for (;;) {
    pollfd fds[2] = {{signal_fd_, POLLIN, 0}, {stop_[0], POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents) return;
    signalfd_siginfo info{};
    if (read(signal_fd_, &info, sizeof info) != static_cast<ssize_t>(sizeof info)) continue;
    int expected = 0;
    const int sig = static_cast<int>(info.ssi_signo);
    if (signal_.compare_exchange_strong(expected, sig)) {
      const std::string line = std::string("\nkaudit audit: SIG") + sigabbrev_np(sig) +
                               ": stopping every run and removing its workspace...\n";
      (void)!write(STDERR_FILENO, line.data(), line.size());
    }
    run::interrupt_children();
  }
}

}  // namespace kaudit::audit
