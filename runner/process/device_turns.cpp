#include "runner/process/device_turns.h"

#include <utility>

namespace kaudit::run {

DeviceTurns::Turn::Turn(Turn&& other) noexcept
    : owner_(std::exchange(other.owner_, nullptr)), kind_(std::exchange(other.kind_, Kind::none)), since_(other.since_) {}

DeviceTurns::Turn& DeviceTurns::Turn::operator=(Turn&& other) noexcept {
  if (this != &other) {
    release();
    owner_ = std::exchange(other.owner_, nullptr);
    kind_ = std::exchange(other.kind_, Kind::none);
    since_ = other.since_;
  }
  return *this;
}

void DeviceTurns::Turn::release() {
  if (owner_ != nullptr && kind_ != Kind::none) owner_->give_back(kind_, since_);
  owner_ = nullptr;
  kind_ = Kind::none;
}

bool DeviceTurns::asked_before(const std::set<std::uint64_t>& waiting, std::uint64_t ticket) {
  return !waiting.empty() && *waiting.begin() < ticket;
}

bool DeviceTurns::shared_may_go(std::uint64_t ticket) const {
  if (exclusive_held_) return false;
  if (!asked_before(exclusive_waiting_, ticket)) return true;
  return !shared_since_.empty() && now_() - *shared_since_.begin() >= patience_;  // the timing waits for that one anyway
}

DeviceTurns::Turn DeviceTurns::give_shared() {
  const Clock::time_point since = now_();
  shared_since_.insert(since);
  return Turn(this, Kind::shared, since);
}

DeviceTurns::Turn DeviceTurns::shared() {
  std::unique_lock lock(mutex_);
  const std::uint64_t ticket = next_ticket_++;
  shared_waiting_.insert(ticket);
  // Woken when a turn is given back or asked for; asked again now and then
  // while a timing turn waits, for a shared turn that outlasts the patience.
  while (!shared_may_go(ticket)) changed_.wait_for(lock, std::chrono::milliseconds(100));
  shared_waiting_.erase(ticket);
  return give_shared();
}

DeviceTurns::Turn DeviceTurns::exclusive() {
  std::unique_lock lock(mutex_);
  const std::uint64_t ticket = next_ticket_++;
  exclusive_waiting_.insert(ticket);
  changed_.wait(lock, [&] {
    return !exclusive_held_ && shared_since_.empty() && !asked_before(exclusive_waiting_, ticket) &&
           !asked_before(shared_waiting_, ticket);
  });
  exclusive_waiting_.erase(ticket);
  exclusive_held_ = true;
  return Turn(this, Kind::exclusive);
}

DeviceTurns::Turn DeviceTurns::try_shared() {
  std::lock_guard lock(mutex_);
  if (!shared_may_go(next_ticket_)) return Turn();
  return give_shared();
}

DeviceTurns::Turn DeviceTurns::try_exclusive() {
  std::lock_guard lock(mutex_);
  if (exclusive_held_ || !shared_since_.empty() || !shared_waiting_.empty() || !exclusive_waiting_.empty()) return Turn();
  exclusive_held_ = true;
  return Turn(this, Kind::exclusive);
}

int DeviceTurns::exclusive_waiting() {
  std::lock_guard lock(mutex_);
  return static_cast<int>(exclusive_waiting_.size());
}

int DeviceTurns::shared_waiting() {
  std::lock_guard lock(mutex_);
  return static_cast<int>(shared_waiting_.size());
}

bool DeviceTurns::yield_to_timing(Turn& turn) {
  if (turn.owner_ != this || turn.kind() != Kind::shared) return false;
  {
    std::lock_guard lock(mutex_);
    if (exclusive_waiting_.empty()) {  // kept: its work so far ended here, what follows is new
      shared_since_.erase(shared_since_.find(turn.since_));
      turn.since_ = now_();
      shared_since_.insert(turn.since_);
      return false;
    }
  }
  turn.release();
  turn = shared();  // waits for the timing turns asked for before it
  return true;
}

void DeviceTurns::give_back(Kind kind, Clock::time_point since) {
  {
    std::lock_guard lock(mutex_);
    if (kind == Kind::exclusive) {
      exclusive_held_ = false;
    } else {
      shared_since_.erase(shared_since_.find(since));
    }
  }
  changed_.notify_all();
}

}  // namespace kaudit::run
