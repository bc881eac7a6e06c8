// The audit's heartbeat (audit/progress.h, issue 18 item 6): what it says
// about the runs in progress, and when it speaks.
#include "audit/progress.h"

#include <gtest/gtest.h>

using kaudit::audit::RunningBoard;
using Clock = RunningBoard::Clock;
using std::chrono::seconds;

TEST(RunningBoard, ListsRunsInProgressOldestFirstWithTheirTime) {
  RunningBoard board(44);
  const Clock::time_point t0{};
  board.started("topk__clean", t0);
  board.started("moe__clean", t0 + seconds(20));
  board.finished("topk__clean");
  board.started("fp8__cheat", t0 + seconds(30));
  EXPECT_EQ(board.line(t0 + seconds(65)), "... 1 of 44 done; running: moe__clean 45 s, fp8__cheat 35 s");
}

TEST(RunningBoard, SpeaksOnlyAfterAQuietInterval) {
  RunningBoard board(3);
  const Clock::time_point t0{};
  board.started("a", t0);
  EXPECT_FALSE(board.due(t0 + seconds(29), seconds(30))) << "nothing said for 29 s: not yet";
  EXPECT_TRUE(board.due(t0 + seconds(30), seconds(30)));
  board.spoke(t0 + seconds(30));
  EXPECT_FALSE(board.due(t0 + seconds(45), seconds(30)));
  board.finished("a");  // a progress line was printed: the quiet interval starts again
  board.spoke(t0 + seconds(50));
  EXPECT_FALSE(board.due(t0 + seconds(79), seconds(30)));
  EXPECT_FALSE(board.due(t0 + seconds(90), seconds(30))) << "nothing running: nothing to say";
}
