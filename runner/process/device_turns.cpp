#include "runner/process/device_turns.h"

#include <utility>

namespace kaudit::run {

DeviceTurns::Turn::Turn(Turn&& other) noexcept
    : owner_(std::exchange(other.owner_, nullptr)), kind_(std::exchange(other.kind_, Kind::none)) {}

DeviceTurns::Turn& DeviceTurns::Turn::operator=(Turn&& other) noexcept {
  if (this != &other) {
    release();
    owner_ = std::exchange(other.owner_, nullptr);
    kind_ = std::exchange(other.kind_, Kind::none);
  }
  return *this;
}

void DeviceTurns::Turn::release() {
  if (owner_ != nullptr && kind_ != Kind::none) owner_->give_back(kind_);
  owner_ = nullptr;
  kind_ = Kind::none;
}

DeviceTurns::Turn DeviceTurns::shared() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return !exclusive_held_ && exclusive_waiting_ == 0; });
  ++sharing_;
  return Turn(this, Kind::shared);
}

DeviceTurns::Turn DeviceTurns::exclusive() {
  std::unique_lock lock(mutex_);
  ++exclusive_waiting_;
  changed_.wait(lock, [&] { return !exclusive_held_ && sharing_ == 0; });
  --exclusive_waiting_;
  exclusive_held_ = true;
  return Turn(this, Kind::exclusive);
}

DeviceTurns::Turn DeviceTurns::try_shared() {
  std::lock_guard lock(mutex_);
  if (exclusive_held_ || exclusive_waiting_ > 0) return Turn();
  ++sharing_;
  return Turn(this, Kind::shared);
}

DeviceTurns::Turn DeviceTurns::try_exclusive() {
  std::lock_guard lock(mutex_);
  if (exclusive_held_ || sharing_ > 0) return Turn();
  exclusive_held_ = true;
  return Turn(this, Kind::exclusive);
}

int DeviceTurns::exclusive_waiting() {
  std::lock_guard lock(mutex_);
  return exclusive_waiting_;
}

bool DeviceTurns::yield_to_timing(Turn& turn) {
  if (turn.owner_ != this || turn.kind() != Kind::shared || exclusive_waiting() == 0) return false;
  turn.release();
  turn = shared();  // waits while a timing turn is held or waited for
  return true;
}

void DeviceTurns::give_back(Kind kind) {
  {
    std::lock_guard lock(mutex_);
    if (kind == Kind::exclusive) exclusive_held_ = false;
    else --sharing_;
  }
  changed_.notify_all();
}

}  // namespace kaudit::run
