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
