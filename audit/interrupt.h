// Ctrl-C (SIGINT) and SIGTERM during `kaudit audit` (docs/audit.md,
// "Interrupting a batch"). While a SignalWatch lives, both signals are
// blocked in the thread that made it and in every thread started after it,
// and taken by the watch's own thread, which kills the process group of
// every child the runs started (run::interrupt_children): the runs end at
// once and remove their workspaces as they unwind, no new run starts, and
// the audit stops without writing the interrupted runs' evidence, so that
// the next audit of the batch resumes them.
#pragma once

#include <signal.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>

namespace kaudit::audit {

class SignalWatch {
 public:
  SignalWatch();  // throws std::runtime_error when the signals cannot be watched
  ~SignalWatch();
  SignalWatch(const SignalWatch&) = delete;
  SignalWatch& operator=(const SignalWatch&) = delete;

  // The first signal taken (SIGINT or SIGTERM), or 0.
  int signal() const { return signal_.load(); }

 private:
  void watch();

  sigset_t old_mask_{};
  int signal_fd_ = -1;
  int stop_[2] = {-1, -1};
  std::atomic<int> signal_{0};
  std::thread thread_;
};

// What run_audit throws when a signal stopped it; the exit status is
// 128 + signal (130 for SIGINT, 143 for SIGTERM).
struct AuditInterrupted : std::runtime_error {
  AuditInterrupted(int number, const std::string& what) : std::runtime_error(what), signal(number) {}
  int signal;
};

}  // namespace kaudit::audit
