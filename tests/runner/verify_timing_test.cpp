// The runner's clock against the times the harness reported (run/verify_timing.h).
#include "run/verify_timing.h"

#include "run/machine_load.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

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

// Calls during which other work held every core (the runner saw more tasks
// of other processes runnable than the machine has cores) say nothing about
// the submission: they are left out of the comparison. With too few calls
// left, the check is not made, and says why, rather than calling an honest
// submission's times forged.
TEST(VerifyTiming, CallsOnABusyMachineAreLeftOut) {
  // The clean CPU run that CI's load made "forged": 2.35 ms reported, 13.3 ms seen.
  std::vector<TimedCall> busy(12, TimedCall{2.35, 13.3, true});
  const auto all_busy = check_against_clock(busy, kaudit::run::kClockSlackCpuMs);
  EXPECT_FALSE(all_busy.forged);
  ASSERT_TRUE(all_busy.unverified);
  EXPECT_NE(all_busy.unverified->find("12 of 12"), std::string::npos) << *all_busy.unverified;
  EXPECT_EQ(all_busy.to_json()["contended_calls"], 12);
  // Forged calls stay forged when the machine is free during most of them.
  std::vector<TimedCall> forged(10, TimedCall{0.002, 21.0, false});
  for (int k = 0; k < 3; ++k) forged.push_back({0.002, 40.0, true});
  EXPECT_TRUE(check_against_clock(forged, kaudit::run::kClockSlackCpuMs).forged);
  // Honest calls on a free machine with a few busy ones: nothing to say.
  std::vector<TimedCall> mixed(10, TimedCall{2.35, 3.0, false});
  for (int k = 0; k < 4; ++k) mixed.push_back({2.35, 30.0, true});
  const auto m = check_against_clock(mixed, kaudit::run::kClockSlackCpuMs);
  EXPECT_FALSE(m.forged);
  EXPECT_FALSE(m.unverified);
}

// The count behind "busy": runnable tasks of processes other than the ones
// named. This thread (reading) and one spinning beside it are runnable.
TEST(MachineLoad, RunnableTasksOfOtherProcesses) {
  std::atomic<bool> stop{false};
  std::thread spin([&] {
    while (!stop.load()) {
    }
  });
  const int with_us = kaudit::run::runnable_tasks_outside({});
  stop = true;
  spin.join();
  EXPECT_GE(with_us, 2);
  EXPECT_GE(kaudit::run::usable_cores(), 1);
}
