#include "audit/progress.h"

#include <algorithm>
#include <iostream>

namespace kaudit::audit {

void RunningBoard::started(const std::string& key, Clock::time_point now) {
  if (running_.empty() && done_ == 0) last_spoke_ = now;
  running_.push_back({key, now});
}

void RunningBoard::finished(const std::string& key) {
  const auto it = std::find_if(running_.begin(), running_.end(), [&](const Running& r) { return r.key == key; });
  if (it != running_.end()) running_.erase(it);
  ++done_;
}

bool RunningBoard::due(Clock::time_point now, Clock::duration interval) const {
  return !running_.empty() && now - last_spoke_ >= interval;
}

std::string RunningBoard::line(Clock::time_point now) const {
  std::string out = "... " + std::to_string(done_) + " of " + std::to_string(total_) + " done; running:";
  for (std::size_t i = 0; i < running_.size(); ++i) {
    const auto s = std::chrono::duration_cast<std::chrono::seconds>(now - running_[i].since).count();
    out += (i ? ", " : " ") + running_[i].key + " " + std::to_string(s) + " s";
  }
  return out;
}

Heartbeat::Heartbeat(double interval_s, RunningBoard& board, std::mutex& print_mutex) {
  if (interval_s <= 0) return;
  print_mutex_ = &print_mutex;
  const auto interval =
      std::chrono::duration_cast<RunningBoard::Clock::duration>(std::chrono::duration<double>(interval_s));
  thread_ = std::thread([this, interval, &board, &print_mutex] {
    std::unique_lock<std::mutex> lock(print_mutex);
    // Wake often enough to speak on time, without spinning on a short interval.
    const auto tick = std::min<RunningBoard::Clock::duration>(interval, std::chrono::seconds(1));
    while (!stop_) {
      stopped_.wait_for(lock, tick, [this] { return stop_; });
      const auto now = RunningBoard::Clock::now();
      if (!stop_ && board.due(now, interval)) {
        std::cout << board.line(now) << std::endl;
        board.spoke(now);
      }
    }
  });
}

Heartbeat::~Heartbeat() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(*print_mutex_);
    stop_ = true;
  }
  stopped_.notify_all();
  thread_.join();
}

}  // namespace kaudit::audit
