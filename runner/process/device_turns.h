// Runs that share one device (kaudit audit --jobs N) take turns at it. Untimed
// GPU work (input generation, correctness calls, expected outputs) may run
// side by side: shared turns. A timing mode needs the device to itself, so
// that no other run's kernels land in a timed call: an exclusive turn. A run
// waiting for an exclusive turn goes before runs that then ask for shared
// ones, so timing is never starved by a stream of untimed work.
#pragma once

#include <condition_variable>
#include <mutex>

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

  Turn shared();     // blocks while a timing turn is held or waited for
  Turn exclusive();  // blocks until no other turn is held
  // Without waiting: an empty turn (kind none) when it cannot be had now.
  Turn try_shared();
  Turn try_exclusive();
  int exclusive_waiting();  // runs waiting for an exclusive turn now
  // At a point where a run holding `turn` (shared) may pause its untimed
  // work: when a run waits to time, `turn` is given back and taken again
  // once the timing runs waiting are done; true when it was. Any other turn
  // is kept as it is.
  bool yield_to_timing(Turn& turn);

 private:
  void give_back(Kind kind);
  std::mutex mutex_;
  std::condition_variable changed_;
  int sharing_ = 0;
  int exclusive_waiting_ = 0;
  bool exclusive_held_ = false;
};

}  // namespace kaudit::run
