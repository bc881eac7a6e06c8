#include "audit/progress.h"

#include <algorithm>

namespace kaudit::audit {

void RunningBoard::started(const std::string& key, Clock::time_point now) {
  if (running_.empty() && done_ == 0) last_spoke_ = now;
  running_.push_back({key, now});
}

void RunningBoard::finished(const std::string& key, Clock::time_point) {
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

}  // namespace kaudit::audit
