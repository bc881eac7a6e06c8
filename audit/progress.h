// What an audit says while it works (issue 18 item 6): besides a line per
// finished submission, a heartbeat naming the runs in progress and how long
// each has run, printed when nothing was printed for an interval
// (--heartbeat, 30 s), so that a log shows a long batch is alive.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace kaudit::audit {

class RunningBoard {
 public:
  using Clock = std::chrono::steady_clock;
  explicit RunningBoard(std::size_t total) : total_(total) {}
  void started(const std::string& key, Clock::time_point now);
  void finished(const std::string& key);
  void spoke(Clock::time_point now) { last_spoke_ = now; }  // a line was printed
  // A run is in progress and nothing was said for `interval`.
  bool due(Clock::time_point now, Clock::duration interval) const;
  // "... D of T done; running: KEY S s, ..." (oldest first).
  std::string line(Clock::time_point now) const;

 private:
  struct Running {
    std::string key;
    Clock::time_point since;
  };
  std::size_t total_;
  std::size_t done_ = 0;
  std::vector<Running> running_;
  Clock::time_point last_spoke_{};
};

// Prints the board's line to stdout whenever it is due, from its own thread,
// until destroyed (the batch's runs are over). The board and the printing
// are guarded by `print_mutex`, which the workers hold while they print.
class Heartbeat {
 public:
  Heartbeat(double interval_s, RunningBoard& board, std::mutex& print_mutex);  // interval_s <= 0: silent
  ~Heartbeat();
  Heartbeat(const Heartbeat&) = delete;
  Heartbeat& operator=(const Heartbeat&) = delete;

 private:
  std::mutex* print_mutex_ = nullptr;
  std::condition_variable stopped_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace kaudit::audit
