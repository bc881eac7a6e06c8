// Runs that share one device (kaudit audit --jobs N) take turns at it. Untimed
// GPU work (input generation, correctness calls, expected outputs) may run
// side by side: shared turns. A timing mode needs the device to itself, so
// that no other run's kernels land in a timed call: an exclusive turn. Turns
// are given in the order they were asked for, shared turns side by side: a
// run waiting for an exclusive turn goes before runs that then ask for shared
// ones, so timing is never starved by a stream of untimed work, and a run
// waiting for a shared turn goes before runs that then ask to time, so untimed
// work is never starved by a stream of timing.
//
// But a run waiting to time holds back new shared turns only while the
// shared turns it waits for are short. Once one of them has been held for
// `patience` since its holder's last yield point, the timing waits for that
// one anyway, and the other runs' untimed work goes on beside it: on an H100
// a submission's first call that never ended held its shared turn for over a
// minute, runs asked to time behind it, and every other run of the batch
// waited behind those (66 s of device wait each for two top-k runs).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <set>

namespace kaudit::run {

class DeviceTurns {
 public:
  enum class Kind { none, shared, exclusive };
  using Clock = std::chrono::steady_clock;
  // Longer than an untimed call between two yield points takes (milliseconds
  // to a second); shorter than a build or a call that hangs.
  static constexpr Clock::duration kPatience = std::chrono::seconds(2);

  explicit DeviceTurns(Clock::duration patience = kPatience, std::function<Clock::time_point()> now = Clock::now)
      : patience_(patience), now_(std::move(now)) {}

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
    Turn(DeviceTurns* owner, Kind kind, Clock::time_point since = {}) : owner_(owner), kind_(kind), since_(since) {}
    DeviceTurns* owner_ = nullptr;
    Kind kind_ = Kind::none;
    Clock::time_point since_;  // when a shared turn was given
  };

  // Blocks while a timing turn is held, or was asked for before it and waits
  // for shared turns that were all given less than `patience` ago.
  Turn shared();
  Turn exclusive();  // blocks until no other turn is held or asked for before it
  // Without waiting: an empty turn (kind none) when it cannot be had now.
  Turn try_shared();
  Turn try_exclusive();
  int exclusive_waiting();  // runs waiting for an exclusive turn now
  int shared_waiting();     // runs waiting for a shared turn now
  // At a point where a run holding `turn` (shared) may pause its untimed
  // work: when a run waits to time, `turn` is given back and taken again
  // once the timing runs waiting are done; true when it was. Any other turn
  // is kept as it is. A shared turn kept counts as given now for the
  // patience: what held it until this point has ended.
  bool yield_to_timing(Turn& turn);

 private:
  void give_back(Kind kind, Clock::time_point since);
  // Whether a turn in `waiting` was asked for before `ticket`.
  static bool asked_before(const std::set<std::uint64_t>& waiting, std::uint64_t ticket);
  // Under mutex_: a shared turn asked for as `ticket` may be given now.
  bool shared_may_go(std::uint64_t ticket) const;
  Turn give_shared();  // under mutex_
  const Clock::duration patience_;
  const std::function<Clock::time_point()> now_;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool exclusive_held_ = false;
  std::uint64_t next_ticket_ = 0;                       // the order turns were asked for in
  std::set<std::uint64_t> shared_waiting_, exclusive_waiting_;  // tickets of those waiting
  std::multiset<Clock::time_point> shared_since_;               // one per shared turn held now: when it was given
};

}  // namespace kaudit::run
