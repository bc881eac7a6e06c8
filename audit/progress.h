// What an audit says while it works (issue 18 item 6): besides a line per
// finished submission, the runs in progress with the phase each is in and
// how long each has run. In a log, a heartbeat line when nothing was printed
// for an interval (--heartbeat, 30 s), so that a long batch shows it is
// alive; on a terminal, one live line per run, redrawn every second below
// the finished ones.
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
  // The phase a run is in now ("correctness, shape 1"), as its runner says;
  // the text comes from the submission's process, so control bytes and
  // anything outside printable ASCII become '?', and it is cut at 60.
  void phase(const std::string& key, const std::string& text);
  void spoke(Clock::time_point now) { last_spoke_ = now; }  // a line was printed
  // A run is in progress and nothing was said for `interval`.
  bool due(Clock::time_point now, Clock::duration interval) const;
  // "... D of T done; running: KEY (PHASE) S s, ..." (oldest first).
  std::string line(Clock::time_point now) const;
  // The live block: "  KEY  PHASE  S s" per run, oldest first; and what
  // erases the block last drawn (cursor up over its lines, clear below),
  // empty when nothing is drawn.
  std::string draw_live(Clock::time_point now);
  std::string erase_live();

 private:
  struct Running {
    std::string key;
    Clock::time_point since;
    std::string phase;
  };
  std::size_t total_;
  std::size_t done_ = 0;
  std::vector<Running> running_;
  Clock::time_point last_spoke_{};
  std::size_t live_lines_ = 0;  // lines of the live block on the screen now
};

// Prints the board's line to stdout whenever it is due, from its own thread,
// until destroyed (the batch's runs are over). The board and the printing
// are guarded by `print_mutex`, which the workers hold while they print.
class Heartbeat {
 public:
  // interval_s <= 0: silent. `live`: a terminal, where the board's live
  // block is redrawn every second instead.
  Heartbeat(double interval_s, RunningBoard& board, std::mutex& print_mutex, bool live = false);
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
