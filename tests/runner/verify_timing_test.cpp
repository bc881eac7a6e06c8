// The runner's clock against the times the harness reported (runner/judge/verify_timing.h).
#include "runner/judge/verify_timing.h"

#include "runner/process/machine_load.h"

#include <gtest/gtest.h>

#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

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

// On an H100 beside other runs, every call of an honest run (a CUDA graph
// replayed, 0.16 ms) took 2.4 ms more on the runner's clock than reported,
// over the 2 ms slack. The mode's null calls (the harness's own work around
// a call, with no call in it) showed the same 2.4 ms: that much is overhead.
TEST(VerifyTiming, OverheadTheNullCallsShowToo) {
  const std::vector<TimedCall> calls(20, TimedCall{0.162, 2.574});
  EXPECT_TRUE(check_against_clock(calls, kaudit::run::kClockSlackMs).forged) << "the case without null calls";
  const std::vector<TimedCall> nulls(5, TimedCall{0.003, 2.45});
  const auto c = check_against_clock(calls, kaudit::run::kClockSlackMs, nulls);
  EXPECT_FALSE(c.forged) << *c.forged;
  ASSERT_TRUE(c.median_null_overhead_ms);
  EXPECT_NEAR(*c.median_null_overhead_ms, 2.447, 1e-9);
  EXPECT_TRUE(c.to_json().contains("median_null_overhead_ms"));
}

// Null calls slowed down on purpose excuse no more than kNullOverheadCapMs:
// 21 ms calls reported as 0.1 ms stay forged.
TEST(VerifyTiming, NullCallsExcuseNoMoreThanTheCap) {
  const std::vector<TimedCall> calls(20, TimedCall{0.1, 21.0});
  const std::vector<TimedCall> nulls(5, TimedCall{0.0, 20.0});
  const auto c = check_against_clock(calls, kaudit::run::kClockSlackMs, nulls);
  ASSERT_TRUE(c.forged);
  EXPECT_NE(c.forged->find("null calls"), std::string::npos) << *c.forged;
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

// On a busy machine the harness's main thread waits for a CPU, inside the
// call and around it; the kernel counts that wait (/proc/PID/schedstat). A
// contended call whose wait is known is judged with the wait excused: an
// honest call's gap is the wait, a forged call's is work it did not report.
TEST(VerifyTiming, BusyCallsAreJudgedWithTheWaitForACpuExcused) {
  std::vector<TimedCall> honest(12, TimedCall{2.35, 13.3, true, 10.6});
  const auto h = check_against_clock(honest, kaudit::run::kClockSlackCpuMs);
  EXPECT_FALSE(h.forged);
  EXPECT_FALSE(h.unverified);
  EXPECT_EQ(h.to_json()["contended_calls"], 12);
  EXPECT_NEAR(h.median_unexplained_ms, 13.3 - 2.35 - 10.6, 1e-9);
  // 20 ms of sleep reported as 0.002 ms, with 19 ms of waiting for a CPU.
  std::vector<TimedCall> forged(12, TimedCall{0.002, 40.0, true, 19.0});
  const auto f = check_against_clock(forged, kaudit::run::kClockSlackCpuMs);
  ASSERT_TRUE(f.forged);
  EXPECT_NE(f.forged->find("waiting for a CPU"), std::string::npos) << *f.forged;
  // The wait is excused only on a busy machine: a submission that makes its
  // own main thread wait (threads of its own on every core) excuses nothing.
  std::vector<TimedCall> self_made(12, TimedCall{0.002, 40.0, false, 39.0});
  EXPECT_TRUE(check_against_clock(self_made, kaudit::run::kClockSlackCpuMs).forged);
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

// A build lends the device only once the run's harness is seen stopped
// (SubmissionSession::lend_turn_while_building): every thread, not one.
TEST(MachineLoad, AllThreadsStoppedOnlyWhileTheProcessIsStopped) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::thread worker([] {
      for (;;) pause();
    });
    for (;;) pause();
  }
  EXPECT_FALSE(kaudit::run::all_threads_stopped(child));
  ASSERT_EQ(kill(child, SIGSTOP), 0);
  bool stopped = false;
  for (int i = 0; i < 500 && !stopped; ++i) {
    stopped = kaudit::run::all_threads_stopped(child);
    if (!stopped) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_TRUE(stopped);
  ASSERT_EQ(kill(child, SIGCONT), 0);
  bool running = false;
  for (int i = 0; i < 500 && !running; ++i) {
    running = !kaudit::run::all_threads_stopped(child);
    if (!running) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_TRUE(running);
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  EXPECT_FALSE(kaudit::run::all_threads_stopped(child));  // gone
}

// Two processes pinned to one core take turns: each waits for the CPU about
// as long as it runs, and schedstat says so.
TEST(MachineLoad, WaitForACpuOfAProcessSharingItsCore) {
  if (!kaudit::run::runqueue_wait_ms(::getpid())) GTEST_SKIP() << "no /proc/PID/schedstat on this kernel";
  cpu_set_t mine;
  ASSERT_EQ(sched_getaffinity(0, sizeof mine, &mine), 0);
  int core = 0;
  while (!CPU_ISSET(core, &mine)) ++core;
  std::vector<pid_t> spinners;
  for (int k = 0; k < 2; ++k) {
    const pid_t p = fork();
    ASSERT_GE(p, 0);
    if (p == 0) {
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(core, &one);
      sched_setaffinity(0, sizeof one, &one);
      for (;;) {
      }
    }
    spinners.push_back(p);
  }
  const auto before = kaudit::run::runqueue_wait_ms(spinners[0]);
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  const auto after = kaudit::run::runqueue_wait_ms(spinners[0]);
  for (const pid_t p : spinners) {
    kill(p, SIGKILL);
    waitpid(p, nullptr, 0);
  }
  ASSERT_TRUE(before && after);
  EXPECT_GE(*after - *before, 100.0);  // about 200 of the 400 ms
  EXPECT_FALSE(kaudit::run::runqueue_wait_ms(spinners[0]));  // gone
}

// The harness says its process id as its own PID namespace numbers it; the
// runner finds the process that id names among the run's processes.
TEST(MachineLoad, ProcessFoundByTheIdItsNamespaceGaveIt) {
  const int me = ::getpid();
  EXPECT_EQ(kaudit::run::process_with_namespace_pid(me, {me}), me);
  EXPECT_FALSE(kaudit::run::process_with_namespace_pid(me, {}));
  EXPECT_FALSE(kaudit::run::process_with_namespace_pid(me + 1, {me}));
}
