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

// Each run says which phase it is in (the runner tells the board), and the
// heartbeat line shows it beside the time.
TEST(RunningBoard, ShowsEachRunsPhase) {
  RunningBoard board(5);
  const Clock::time_point t0{};
  board.started("topk__clean", t0);
  board.started("moe__clean", t0 + seconds(10));
  board.phase("topk__clean", "timing, shape 1, mode fresh");
  board.phase("nobody", "correctness, shape 0");  // a run the board does not hold: ignored
  EXPECT_EQ(board.line(t0 + seconds(40)),
            "... 0 of 5 done; running: topk__clean (timing, shape 1, mode fresh) 40 s, moe__clean 30 s");
  // The phase's name comes from the submission's process: no terminal
  // escape or other control byte reaches the screen, and it is kept short.
  board.phase("moe__clean", "x\033]0;title\007y\r\n" + std::string(200, 'z'));
  const std::string line = board.line(t0 + seconds(40));
  EXPECT_NE(line.find("moe__clean (x?]0;title?y??zzz"), std::string::npos) << line;
  EXPECT_EQ(line.find('\033'), std::string::npos);
  EXPECT_LT(line.size(), 200u);
}

// On a terminal: one live line per running run, redrawn in place; erasing
// moves up over exactly the lines drawn, so that a finished run's line can be
// printed above the block.
TEST(RunningBoard, LiveBlockIsOneLinePerRunAndErasesWhatItDrew) {
  RunningBoard board(3);
  const Clock::time_point t0{};
  EXPECT_EQ(board.erase_live(), "") << "nothing drawn yet";
  board.started("a", t0);
  board.started("b", t0 + seconds(5));
  board.phase("b", "correctness, shape 0");
  EXPECT_EQ(board.draw_live(t0 + seconds(12)), "  a  12 s\n  b  correctness, shape 0  7 s\n");
  EXPECT_EQ(board.erase_live(), "\033[2F\033[J");
  EXPECT_EQ(board.erase_live(), "") << "erased once";
  board.finished("a");
  EXPECT_EQ(board.draw_live(t0 + seconds(13)), "  b  correctness, shape 0  8 s\n");
  EXPECT_EQ(board.erase_live(), "\033[1F\033[J");
}
