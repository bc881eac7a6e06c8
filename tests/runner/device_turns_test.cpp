// DeviceTurns: untimed work shares the device, timing has it alone, and a
// run waiting to time is not starved by runs asking for untimed work.
#include "run/device_turns.h"

#include <gtest/gtest.h>

#include <atomic>
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
