// DeviceTurns: untimed work shares the device, timing has it alone, and a
// run waiting to time is not starved by runs asking for untimed work.
#include "runner/process/device_turns.h"
#include "runner/plan/run_result.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

namespace {

using kaudit::run::DeviceTurns;
using Kind = DeviceTurns::Kind;

TEST(DeviceTurns, SharedTurnsOverlapAndExcludeTiming) {
  DeviceTurns turns;
  DeviceTurns::Turn a = turns.shared();
  DeviceTurns::Turn b = turns.shared();
  EXPECT_EQ(a.kind(), Kind::shared);
  EXPECT_EQ(b.kind(), Kind::shared);
  EXPECT_EQ(turns.try_exclusive().kind(), Kind::none);
  a.release();
  EXPECT_EQ(turns.try_exclusive().kind(), Kind::none) << "one shared turn is still held";
  b.release();
  DeviceTurns::Turn t = turns.try_exclusive();
  EXPECT_EQ(t.kind(), Kind::exclusive);
  EXPECT_EQ(turns.try_shared().kind(), Kind::none);
  EXPECT_EQ(turns.try_exclusive().kind(), Kind::none);
  t.release();
  EXPECT_EQ(turns.try_shared().kind(), Kind::shared);  // given back at the end of the statement
}

TEST(DeviceTurns, WaitingTimingTurnGoesBeforeNewSharedTurns) {
  DeviceTurns turns;
  DeviceTurns::Turn held = turns.shared();
  std::atomic<bool> timed{false};
  std::thread timing([&] {
    DeviceTurns::Turn t = turns.exclusive();
    timed = true;
  });
  while (turns.exclusive_waiting() == 0) std::this_thread::yield();  // it is waiting now
  EXPECT_EQ(turns.try_shared().kind(), Kind::none) << "untimed work must not jump the queue";
  EXPECT_FALSE(timed.load());
  held.release();
  timing.join();
  EXPECT_TRUE(timed.load());
  EXPECT_EQ(turns.try_shared().kind(), Kind::shared);
}

// Timing goes before untimed work that asks after it, not before untimed
// work that was waiting first: else, with several runs timing one after
// another (each asking for its next mode while another times), a run waiting
// for a shared turn for its first call waits for as long as any run times
// (session 17, on six jobs: a MoE run held 300 s at its first correctness call).
TEST(DeviceTurns, AnUntimedTurnIsNotStarvedByAStreamOfTimingTurns) {
  DeviceTurns turns;
  DeviceTurns::Turn timing_a = turns.exclusive();
  std::atomic<int> order{0}, untimed_at{0}, timing_b_at{0};
  std::atomic<bool> release_untimed{false};
  std::thread untimed([&] {
    DeviceTurns::Turn t = turns.shared();
    untimed_at = ++order;
    while (!release_untimed) std::this_thread::yield();
  });
  while (turns.shared_waiting() == 0) std::this_thread::yield();  // it waits behind timing_a
  std::thread timing_b([&] {
    DeviceTurns::Turn t = turns.exclusive();
    timing_b_at = ++order;
  });
  while (turns.exclusive_waiting() == 0) std::this_thread::yield();  // timing_b asked after it
  timing_a.release();
  while (order.load() == 0) std::this_thread::yield();
  EXPECT_EQ(untimed_at.load(), 1) << "the untimed turn that waited first must go first";
  release_untimed = true;
  untimed.join();
  timing_b.join();
  EXPECT_EQ(timing_b_at.load(), 2);
}

// A clock the test moves: DeviceTurns' patience is measured on it.
struct FakeClock {
  std::atomic<DeviceTurns::Clock::rep> ticks{0};
  void advance(std::chrono::milliseconds d) { ticks += std::chrono::duration_cast<DeviceTurns::Clock::duration>(d).count(); }
  std::function<DeviceTurns::Clock::time_point()> now() {
    return [this] { return DeviceTurns::Clock::time_point(DeviceTurns::Clock::duration(ticks.load())); };
  }
};

// A run waiting to time behind an untimed call that runs long (a build, a
// call that hangs) waits for it anyway: the other runs' untimed work goes on
// beside it instead of waiting behind the timing run, and once the long call
// has ended timing goes first again.
TEST(DeviceTurns, TimingWaitingBehindALongUntimedCallHoldsBackNoOtherUntimedWork) {
  using std::chrono::milliseconds;
  FakeClock clock;
  DeviceTurns turns(std::chrono::seconds(2), clock.now());
  DeviceTurns::Turn long_call = turns.shared();
  std::atomic<bool> timed{false};
  std::thread timing([&] {
    DeviceTurns::Turn t = turns.exclusive();
    timed = true;
  });
  while (turns.exclusive_waiting() == 0) std::this_thread::yield();
  clock.advance(milliseconds(1000));
  EXPECT_EQ(turns.try_shared().kind(), Kind::none) << "a call of 1 s: timing goes first";
  clock.advance(milliseconds(1500));
  DeviceTurns::Turn other = turns.try_shared();
  EXPECT_EQ(other.kind(), Kind::shared) << "the timing waits 2.5 s for the long call anyway";
  long_call.release();
  EXPECT_FALSE(timed.load()) << "the other untimed call is still under way";
  EXPECT_EQ(turns.exclusive_waiting(), 1);
  EXPECT_EQ(turns.try_shared().kind(), Kind::none) << "the long call ended: timing goes first again";
  other.release();
  timing.join();
  EXPECT_TRUE(timed.load());
}

// A shared turn kept through a yield point (nobody waited to time) counts
// from there: a run holding its turn across many short calls is not a long call.
TEST(DeviceTurns, AKeptTurnCountsFromItsLastYieldPoint) {
  using std::chrono::milliseconds;
  FakeClock clock;
  DeviceTurns turns(std::chrono::seconds(2), clock.now());
  DeviceTurns::Turn mine = turns.shared();
  clock.advance(milliseconds(5000));
  EXPECT_FALSE(turns.yield_to_timing(mine)) << "nobody waits: kept";
  std::thread timing([&] { DeviceTurns::Turn t = turns.exclusive(); });
  while (turns.exclusive_waiting() == 0) std::this_thread::yield();
  clock.advance(milliseconds(1000));
  EXPECT_EQ(turns.try_shared().kind(), Kind::none) << "1 s since its yield point, not 6 s";
  // A run asking for a shared turn meanwhile gets it once the call outlasts the patience.
  std::atomic<bool> untimed{false};
  std::thread waiting([&] {
    DeviceTurns::Turn t = turns.shared();
    untimed = true;
  });
  while (turns.shared_waiting() == 0) std::this_thread::yield();
  EXPECT_FALSE(untimed.load());
  clock.advance(milliseconds(1500));
  waiting.join();  // woken by the clock alone: nothing was given back
  EXPECT_TRUE(untimed.load());
  mine.release();
  timing.join();
}

TEST(DeviceTurns, MovedTurnIsGivenBackOnce) {
  DeviceTurns turns;
  DeviceTurns::Turn a = turns.exclusive();
  DeviceTurns::Turn b = std::move(a);
  EXPECT_EQ(a.kind(), Kind::none);  // NOLINT(bugprone-use-after-move): moved-from state is specified
  EXPECT_EQ(b.kind(), Kind::exclusive);
  a.release();  // nothing to give back
  EXPECT_EQ(turns.try_shared().kind(), Kind::none);
  b = DeviceTurns::Turn();
  EXPECT_EQ(turns.try_shared().kind(), Kind::shared);
}

}  // namespace

// A run holding a shared turn through a long stretch of untimed work lets a
// run waiting to time go first at each of its yield points (issue 17: on the
// H200, five jobs spent most of their wall time waiting while one job's
// correctness phase or expected outputs held the device for a minute).
TEST(DeviceTurns, YieldLetsAWaitingTimingTurnGoFirst) {
  DeviceTurns turns;
  DeviceTurns::Turn mine = turns.shared();
  EXPECT_FALSE(turns.yield_to_timing(mine)) << "nobody waits: the turn is kept";
  EXPECT_EQ(mine.kind(), Kind::shared);
  std::atomic<bool> timed{false};
  std::thread timing([&] {
    DeviceTurns::Turn t = turns.exclusive();
    timed = true;
  });
  while (turns.exclusive_waiting() == 0) std::this_thread::yield();
  EXPECT_FALSE(timed.load()) << "the shared turn is still held";
  EXPECT_TRUE(turns.yield_to_timing(mine));
  EXPECT_TRUE(timed.load()) << "the timing turn ran before the shared one came back";
  EXPECT_EQ(mine.kind(), Kind::shared);
  EXPECT_EQ(turns.try_exclusive().kind(), Kind::none) << "shared again";
  timing.join();
  // Only a shared turn yields: an exclusive one (a timing mode) or none is kept.
  DeviceTurns::Turn none;
  EXPECT_FALSE(turns.yield_to_timing(none));
}

// A run whose harness says its file work follows ("device_idle") gives its
// turn back at once, so a run waiting to time does not wait for that work;
// its next yield point takes a shared turn again (issue 27: on the H200 the
// 34 runs of the gate waited 1,354 s for turns held through file work).
TEST(DeviceAccess, ASetAsideTurnLetsTimingInAndIsTakenAgainAtTheNextYieldPoint) {
  auto turns = std::make_shared<DeviceTurns>();
  kaudit::run::DeviceAccess run(turns, true);
  DeviceTurns::Turn mine = run.take(Kind::shared);
  EXPECT_EQ(turns->try_exclusive().kind(), Kind::none) << "held through its untimed GPU work";
  run.set_aside(mine);
  EXPECT_EQ(mine.kind(), Kind::none);
  {
    DeviceTurns::Turn timing = turns->try_exclusive();
    EXPECT_EQ(timing.kind(), Kind::exclusive) << "nothing of the run holds the device during its file work";
  }
  run.resume(mine);
  EXPECT_EQ(mine.kind(), Kind::shared);
  EXPECT_EQ(turns->try_exclusive().kind(), Kind::none) << "its GPU work has the device again";
  EXPECT_EQ(run.turns_json()["set_aside"], 1) << run.turns_json().dump();
  EXPECT_EQ(run.turns_json()["shared"], 2) << run.turns_json().dump();
  // Without a shared device (one run, or the CPU) there is nothing to give back.
  kaudit::run::DeviceAccess alone(nullptr, false);
  DeviceTurns::Turn none;
  alone.set_aside(none);
  EXPECT_EQ(alone.resume(none), 0);
  EXPECT_EQ(alone.turns_json()["set_aside"], 0);
}

// A run whose timing modes are slow (thousands of kernels a call) hands its
// exclusive turn over between two modes once it has held it a while and
// other runs wait, then takes it again behind them (issue 27: on an H100 one
// submission's nine modes held the device alone for 44 s while three runs
// waited to make their first calls).
TEST(DeviceAccess, AnExclusiveTurnHeldLongIsHandedOverBetweenModesWhileOthersWait) {
  using kaudit::run::clock_type;
  auto turns = std::make_shared<DeviceTurns>();
  kaudit::run::DeviceAccess run(turns, true);
  DeviceTurns::Turn mine = run.take(Kind::exclusive);
  const auto since = clock_type::now();
  EXPECT_FALSE(run.hand_over_between_modes(mine, since, std::chrono::seconds(0))) << "nobody waits";
  EXPECT_EQ(mine.kind(), Kind::exclusive);
  std::atomic<bool> other_ran{false};
  std::thread other([&] {
    DeviceTurns::Turn t = turns->shared();
    other_ran = true;
  });
  while (turns->shared_waiting() == 0) std::this_thread::yield();
  EXPECT_FALSE(run.hand_over_between_modes(mine, since, std::chrono::hours(1))) << "not held long enough";
  EXPECT_FALSE(other_ran.load());
  EXPECT_TRUE(run.hand_over_between_modes(mine, since, std::chrono::seconds(0)));
  EXPECT_TRUE(other_ran.load()) << "the waiting run's shared turn came before the next mode";
  EXPECT_EQ(mine.kind(), Kind::exclusive);
  EXPECT_EQ(turns->try_shared().kind(), Kind::none) << "the next mode has the device alone again";
  other.join();
  EXPECT_EQ(run.turns_json()["handed_over"], 1) << run.turns_json().dump();
  EXPECT_EQ(run.turns_json()["exclusive"], 2) << run.turns_json().dump();
  // A run alone on its device (its own reference beside it) keeps its turn.
  auto own = std::make_shared<DeviceTurns>();
  kaudit::run::DeviceAccess alone(own, false);
  DeviceTurns::Turn t = alone.take(Kind::exclusive);
  std::thread reference([&] { DeviceTurns::Turn r = own->shared(); });
  while (own->shared_waiting() == 0) std::this_thread::yield();
  EXPECT_FALSE(alone.hand_over_between_modes(t, since, std::chrono::seconds(0)));
  EXPECT_EQ(alone.turns_json()["handed_over"], 0);
  t.release();
  reference.join();
}
