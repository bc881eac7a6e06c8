#include "audit/progress.h"

#include <algorithm>
#include <iostream>

namespace kaudit::audit {

void RunningBoard::started(const std::string& key, Clock::time_point now) {
  if (running_.empty() && done_ == 0) last_spoke_ = now;
  running_.push_back({key, now, ""});
}

void RunningBoard::finished(const std::string& key) {
  const auto it = std::find_if(running_.begin(), running_.end(), [&](const Running& r) { return r.key == key; });
  if (it != running_.end()) running_.erase(it);
  ++done_;
}

void RunningBoard::phase(const std::string& key, const std::string& text) {
  const auto it = std::find_if(running_.begin(), running_.end(), [&](const Running& r) { return r.key == key; });
  if (it == running_.end()) return;
  std::string shown;
  for (const char c : text.substr(0, 60)) shown += c >= 0x20 && c < 0x7f ? c : '?';
  it->phase = shown;
}

bool RunningBoard::due(Clock::time_point now, Clock::duration interval) const {
  return !running_.empty() && now - last_spoke_ >= interval;
}

std::string RunningBoard::line(Clock::time_point now) const {
  std::string out = "... " + std::to_string(done_) + " of " + std::to_string(total_) + " done; running:";
  for (std::size_t i = 0; i < running_.size(); ++i) {
    const auto s = std::chrono::duration_cast<std::chrono::seconds>(now - running_[i].since).count();
    const std::string& ph = running_[i].phase;
    out += (i ? ", " : " ") + running_[i].key + (ph.empty() ? "" : " (" + ph + ")") + " " + std::to_string(s) + " s";
  }
  return out;
}

std::string RunningBoard::draw_live(Clock::time_point now) {
  std::string out;
  for (const auto& r : running_) {
    const auto s = std::chrono::duration_cast<std::chrono::seconds>(now - r.since).count();
    out += "  " + r.key + "  " + (r.phase.empty() ? "" : r.phase + "  ") + std::to_string(s) + " s\n";
  }
  live_lines_ = running_.size();
  return out;
}

std::string RunningBoard::erase_live() {
  if (live_lines_ == 0) return "";
  const std::string out = "\033[" + std::to_string(live_lines_) + "F\033[J";
  live_lines_ = 0;
  return out;
}

Heartbeat::Heartbeat(double interval_s, RunningBoard& board, std::mutex& print_mutex, bool live) {
  if (interval_s <= 0) return;
  if (live) interval_s = 1;
  print_mutex_ = &print_mutex;
  const auto interval =
      std::chrono::duration_cast<RunningBoard::Clock::duration>(std::chrono::duration<double>(interval_s));
  thread_ = std::thread([this, interval, live, &board, &print_mutex] {
    std::unique_lock<std::mutex> lock(print_mutex);
    // Wake often enough to speak on time, without spinning on a short interval.
    const auto tick = std::min<RunningBoard::Clock::duration>(interval, std::chrono::seconds(1));
    while (!stop_) {
      stopped_.wait_for(lock, tick, [this] { return stop_; });
      const auto now = RunningBoard::Clock::now();
      if (stop_) break;
      if (live) {
        std::cout << board.erase_live() << board.draw_live(now) << std::flush;
      } else if (board.due(now, interval)) {
        std::cout << board.line(now) << std::endl;
        board.spoke(now);
      }
    }
    if (live) std::cout << board.erase_live() << std::flush;  // the batch's own lines follow
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
