// The runner's clock against the times the harness reported (run/verify_timing.h).
#include "run/verify_timing.h"

#include <gtest/gtest.h>

using kaudit::run::check_against_clock;
using kaudit::run::TimedCall;

TEST(VerifyTiming, HonestCallsWithSomeSlowRoundTripsPass) {
  // Fast calls on a busy machine: most round trips cost 0.1 ms, some many ms.
  std::vector<TimedCall> calls;
  for (int k = 0; k < 20; ++k) calls.push_back({0.01, k % 3 ? 0.12 : 9.0});
  EXPECT_FALSE(check_against_clock(calls, kaudit::run::kClockSlackMs).forged);
}

TEST(VerifyTiming, SlowCallsReportedFastAreForged) {
  // 23 calls of about 21 ms each, reported as 0.002 ms.
  std::vector<TimedCall> calls(23, TimedCall{0.002, 21.0});
  const auto c = check_against_clock(calls, kaudit::run::kClockSlackMs);
  ASSERT_TRUE(c.forged);
  EXPECT_NE(c.forged->find("unaccounted"), std::string::npos) << *c.forged;
  EXPECT_NEAR(c.median_unexplained_ms, 20.998, 1e-9);
}

TEST(VerifyTiming, SomeHonestReportsDoNotHideAForgedMedian) {
  // Six of ten calls reported at 0.002 ms while the runner's clock saw 21 ms;
  // four reported truly: the reported median is still forged.
  std::vector<TimedCall> calls(6, TimedCall{0.002, 21.0});
  for (int k = 0; k < 4; ++k) calls.push_back({20.9, 21.0});
  EXPECT_TRUE(check_against_clock(calls, kaudit::run::kClockSlackMs).forged);
}

TEST(VerifyTiming, OverheadScalesWithTheCall) {
  // 10 ms calls with 3 ms around them (a large flush): within 4 times the call.
  std::vector<TimedCall> calls(10, TimedCall{10.0, 13.0});
  EXPECT_FALSE(check_against_clock(calls, kaudit::run::kClockSlackMs).forged);
}

TEST(VerifyTiming, TimesLongerThanTheClockSawAreForged) {
  std::vector<TimedCall> calls(10, TimedCall{50.0, 1.0});
  EXPECT_TRUE(check_against_clock(calls, kaudit::run::kClockSlackMs).forged);
}

TEST(VerifyTiming, NoCallsNothingToSay) { EXPECT_FALSE(check_against_clock({}, kaudit::run::kClockSlackMs).forged); }
