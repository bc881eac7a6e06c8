// Runs that share one device (kaudit audit --jobs N) take turns at it. Untimed
// GPU work (input generation, correctness calls, expected outputs) may run
// side by side: shared turns. A timing mode needs the device to itself, so
// that no other run's kernels land in a timed call: an exclusive turn. Turns
// are given in the order they were asked for, shared turns side by side: a
// run waiting for an exclusive turn goes before runs that then ask for shared
// ones, so timing is never starved by a stream of untimed work, and a run
// waiting for a shared turn goes before runs that then ask to time, so untimed
// work is never starved by a stream of timing.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <set>

namespace kaudit::run {

class DeviceTurns {
 public:
  enum class Kind { none, shared, exclusive };

  // One turn, given back when released or destroyed. Movable.
  class Turn {
   public:
    Turn() = default;
    Turn(Turn&& other) noexcept;
    Turn& operator=(Turn&& other) noexcept;
    Turn(const Turn&) = delete;
    Turn& operator=(const Turn&) = delete;
    ~Turn() { release(); }
    void release();
    Kind kind() const { return kind_; }

   private:
    friend class DeviceTurns;
    Turn(DeviceTurns* owner, Kind kind) : owner_(owner), kind_(kind) {}
    DeviceTurns* owner_ = nullptr;
    Kind kind_ = Kind::none;
  };

  Turn shared();     // blocks while a timing turn is held or asked for before it
  Turn exclusive();  // blocks until no other turn is held or asked for before it
  // Without waiting: an empty turn (kind none) when it cannot be had now.
  Turn try_shared();
  Turn try_exclusive();
  int exclusive_waiting();  // runs waiting for an exclusive turn now
  int shared_waiting();     // runs waiting for a shared turn now
  // At a point where a run holding `turn` (shared) may pause its untimed
  // work: when a run waits to time, `turn` is given back and taken again
  // once the timing runs waiting are done; true when it was. Any other turn
  // is kept as it is.
  bool yield_to_timing(Turn& turn);

 private:
  void give_back(Kind kind);
  // Whether a turn in `waiting` was asked for before `ticket`.
  static bool asked_before(const std::set<std::uint64_t>& waiting, std::uint64_t ticket);
  std::mutex mutex_;
  std::condition_variable changed_;
  int sharing_ = 0;
  bool exclusive_held_ = false;
  std::uint64_t next_ticket_ = 0;                       // the order turns were asked for in
  std::set<std::uint64_t> shared_waiting_, exclusive_waiting_;  // tickets of those waiting
};

}  // namespace kaudit::run
