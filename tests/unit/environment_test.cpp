// Runs that fail for the machine (audit/environment.h): what counts as the
// environment's, the one retry with the batch to itself, and that a
// submission failing the same way alone is judged on its failure.
#include "audit/environment.h"
#include "audit/job_pool.h"
#include "runner/process/child_process.h"

#include <gtest/gtest.h>

#include <set>

#include <future>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <cstdlib>
#include <chrono>
#include <filesystem>
#include <optional>
#include <thread>

using kaudit::audit::BatchGate;
using kaudit::audit::environment_cause;
using kaudit::audit::GuardSettings;
using kaudit::audit::run_guarded;
using kaudit::run::RunResult;

namespace {

RunResult failed(const std::string& reason, const std::string& stderr_tail = "") {
  RunResult r;
  r.set_error("correctness", reason);
  if (!stderr_tail.empty()) r.submission_process = nlohmann::json{{"stderr_tail", stderr_tail}};
  return r;
}

RunResult passed() {
  RunResult r;
  r.all_correct = true;
  return r;
}

GuardSettings roomy() { return {std::filesystem::temp_directory_path(), 0, true}; }

}  // namespace

TEST(Environment, FullDiskAndSandboxFailuresAreTheMachines) {
  EXPECT_EQ(environment_cause("OSError: [Errno 28] No space left on device: '/tmp/x'", false),
            "no space left on device");
  EXPECT_EQ(environment_cause("bwrap: Creating new namespace failed: No space left on device", false),
            "the sandbox could not be made");
  EXPECT_EQ(environment_cause("bwrap: setting up uid map: Permission denied", false), "the sandbox could not be made");
  EXPECT_EQ(environment_cause("OSError: [Errno 24] Too many open files", false), "too many open files");
  EXPECT_FALSE(environment_cause("ValueError: shapes (4,5) and (6,7) not aligned", false));
  EXPECT_FALSE(environment_cause("AssertionError: expected 8192", true));
}

// Out of device memory is the batch's doing only when the device was shared.
TEST(Environment, DeviceMemoryCountsOnlyWhenShared) {
  const std::string oom = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB";
  EXPECT_TRUE(environment_cause(oom, true));
  EXPECT_FALSE(environment_cause(oom, false));
  EXPECT_TRUE(environment_cause(failed("RuntimeError: boom", oom), true)) << "the stderr tail is read too";
  // A run whose reference computed expected outputs beside its calls shared
  // the device with them, alone or not.
  RunResult beside = failed(oom);
  EXPECT_FALSE(environment_cause(beside, false));
  beside.expected_beside = true;
  EXPECT_TRUE(environment_cause(beside, false));
}

// A child killed by SIGKILL that kaudit did not send (its own deadlines say
// "timed out") was, among runs side by side, most likely the kernel's OOM
// killer: retried alone, where a second such death is the submission's.
TEST(Environment, KilledFromOutsideCountsOnlyWhenShared) {
  const std::string killed =
      "the process ended (signal 9 (SIGKILL)) in correctness, shape 0 without handing over its results";
  EXPECT_TRUE(environment_cause(killed, true).has_value());
  EXPECT_FALSE(environment_cause(killed, false).has_value());
  EXPECT_FALSE(environment_cause("the process ended (signal 11 (SIGSEGV)) in correctness, shape 0", true).has_value());
  EXPECT_FALSE(environment_cause("timed out after 60 s in correctness, shape 0; the process group was killed", true)
                   .has_value());
}

// A first call stopped because it held runs waiting to time, with no build
// running (runner/session/submission_session.h), is run again with the device to itself,
// where it has the whole set-up budget.
TEST(Environment, AFirstCallStoppedForRunsWaitingToTimeIsRetriedAlone) {
  const std::string stopped =
      "stopped after 61 s in correctness, shape 0 (its first call, with no build running for 60 s) while other runs "
      "of the batch waited to time; the process group was killed";
  EXPECT_TRUE(environment_cause(stopped, true).has_value());
  EXPECT_FALSE(environment_cause(stopped, false).has_value());
  int attempts = 0;
  const RunResult r = run_guarded([&] { return ++attempts == 1 ? failed(stopped) : passed(); }, nullptr, roomy());
  EXPECT_EQ(attempts, 2);
  EXPECT_FALSE(r.error);
}

// An audit interrupted while a run was being made again alone (the call's
// time limit on the GPU machine: session 23's longest gate run, twice) keeps
// why it was made again; the retry's own failure is the interruption's and
// judges nothing. In a child process: the interruption is for the process.
TEST(EnvironmentDeathTest, AnInterruptedRetryKeepsWhyItWasMade) {
  EXPECT_EXIT(
      {
        int attempts = 0;
        const RunResult r = run_guarded(
            [&] {
              if (++attempts == 2) kaudit::run::interrupt_children();
              return failed("OSError: [Errno 28] No space left on device");
            },
            nullptr, roomy());
        const bool kept = attempts == 2 && r.environment_retry &&
                          r.environment_retry->first_cause == "no space left on device" &&
                          r.environment_retry->attempts == 2 && !r.environment_retry->judged &&
                          !r.infrastructure;
        std::exit(kept ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(Environment, AFailureOfTheMachineIsRetriedOnceAndTheRetryStands) {
  int attempts = 0;
  const RunResult r = run_guarded(
      [&] { return ++attempts == 1 ? failed("OSError: [Errno 28] No space left on device") : passed(); }, nullptr,
      roomy());
  EXPECT_EQ(attempts, 2);
  EXPECT_FALSE(r.error);
  EXPECT_FALSE(r.infrastructure);
  ASSERT_TRUE(r.environment_retry);
  EXPECT_EQ(r.environment_retry->first_cause, "no space left on device");
  EXPECT_FALSE(r.environment_retry->judged);
}

// The same failure with the machine alone and space enough is the
// submission's: a cheat cannot turn its failure into the machine's.
TEST(Environment, TheSameFailureAloneWithSpaceIsTheSubmissions) {
  int attempts = 0;
  const RunResult r =
      run_guarded([&] { ++attempts; return failed("OSError: [Errno 28] No space left on device"); }, nullptr, roomy());
  EXPECT_EQ(attempts, 2);
  ASSERT_TRUE(r.error);
  EXPECT_FALSE(r.infrastructure);
  ASSERT_TRUE(r.environment_retry);
  EXPECT_NE(r.environment_retry->judged.value_or("").find("counted as the submission's failure"),
            std::string::npos);
  EXPECT_FALSE(r.facts().infrastructure);
}

// A reference process that ends before answering is kaudit's process, not
// the submission's: retried alone, and if it dies again an
// infrastructure-error, never counted against the submission.
TEST(Environment, AReferenceThatDiesTwiceIsInfrastructure) {
  int attempts = 0;
  const RunResult r = run_guarded(
      [&] {
        ++attempts;
        RunResult f;
        f.set_error("reference", "the reference process ended (signal 9 (SIGKILL)) before computing expected outputs");
        return f;
      },
      nullptr, roomy());
  EXPECT_EQ(attempts, 2);
  ASSERT_TRUE(r.infrastructure);
  EXPECT_EQ(r.infrastructure->cause, "the reference's own process ended");
  EXPECT_TRUE(r.facts().infrastructure);
}

TEST(Environment, OtherFailuresAreNotRetried) {
  int attempts = 0;
  const RunResult r = run_guarded([&] { ++attempts; return failed("ValueError: wrong"); }, nullptr, roomy());
  EXPECT_EQ(attempts, 1);
  EXPECT_FALSE(r.environment_retry);
}

// Too little space even alone: the run does not start, and the machine is
// named.
TEST(Environment, TooLittleSpaceEvenAloneIsAnInfrastructureError) {
  int attempts = 0;
  GuardSettings s = roomy();
  s.min_free_bytes = static_cast<std::uintmax_t>(1) << 62;  // more than any disk here
  const RunResult r = run_guarded([&] { ++attempts; return passed(); }, nullptr, s);
  EXPECT_EQ(attempts, 0);
  ASSERT_TRUE(r.infrastructure);
  EXPECT_NE(r.infrastructure->cause.find("free under"), std::string::npos);
  ASSERT_TRUE(r.facts().infrastructure);
  EXPECT_EQ(r.to_json()["infrastructure"]["attempts"], 0);
}

// A run that asks to be alone waits for the others, and none runs beside it.
TEST(Environment, AloneWaitsForTheOthersAndNoneRunsBesideIt) {
  BatchGate gate;
  std::atomic<int> running{0}, most_beside_alone{0};
  std::atomic<bool> alone_now{false};
  auto together = [&] {
    for (int k = 0; k < 50; ++k) {
      auto h = gate.together();
      ++running;
      if (alone_now) most_beside_alone = 1;
      std::this_thread::yield();
      --running;
    }
  };
  std::thread a(together), b(together);
  for (int k = 0; k < 20; ++k) {
    auto h = gate.alone();
    alone_now = true;
    if (running.load() > 0) most_beside_alone = 1;
    std::this_thread::yield();
    alone_now = false;
  }
  a.join();
  b.join();
  EXPECT_EQ(most_beside_alone.load(), 0);
}

// A run waiting to be alone does not hold back the runs not yet started:
// it goes once they are done. Before, every new run waited for it, and a
// retry of a kernel that never ends stalled the whole batch on the H200.
TEST(Environment, RunsNotYetStartedGoBeforeARunWaitingToBeAlone) {
  BatchGate gate;
  auto first = gate.together();  // a run of the batch, under way
  std::atomic<bool> alone_ran{false};
  std::thread retry([&] {
    auto h = gate.alone();
    alone_ran = true;
  });
  while (gate.waiting_alone() == 0) std::this_thread::yield();
  // A new run starts while the retry waits: with the old gate this blocked
  // until the retry had run, which needs `first` to end: a deadlock here.
  auto started = std::async(std::launch::async, [&] { return gate.together(); });
  ASSERT_EQ(started.wait_for(std::chrono::seconds(30)), std::future_status::ready)
      << "a new run waited for the run waiting to be alone";
  BatchGate::Hold second = started.get();
  EXPECT_FALSE(alone_ran.load());
  first.release();
  EXPECT_FALSE(alone_ran.load()) << "alone beside a run";
  second.release();
  retry.join();
  EXPECT_TRUE(alone_ran.load());
}

// Host memory: a run starts beside others only while the machine has the
// memory the batch asks to keep free (--min-free-memory-gib); short of it,
// it waits, asking again, until there is enough or no other run is left.
TEST(Environment, ARunWaitsForMemoryWhileOthersRun) {
  BatchGate gate;
  auto other = gate.together();  // another run of the batch, holding its place
  int asked = 0, attempts = 0, attempts_when_memory_came = -1;
  GuardSettings s = roomy();
  s.min_free_memory_bytes = 1000;
  s.memory_poll = std::chrono::milliseconds(1);
  s.available_memory = [&]() -> std::optional<std::uintmax_t> {
    if (++asked < 3) return 10;  // short, twice
    attempts_when_memory_came = attempts;
    return 5000;
  };
  const RunResult r = run_guarded([&] { ++attempts; return passed(); }, &gate, s);
  EXPECT_EQ(attempts_when_memory_came, 0) << "the run did not start while memory was short";
  EXPECT_EQ(attempts, 1);
  EXPECT_GE(asked, 3);
  EXPECT_FALSE(r.error);
}

// With no other run left (or none at all), waiting frees nothing: it starts.
TEST(Environment, ShortMemoryWithNoOtherRunStartsAtOnce) {
  BatchGate gate;
  int attempts = 0;
  GuardSettings s = roomy();
  s.min_free_memory_bytes = 1000;
  s.memory_poll = std::chrono::milliseconds(1);
  s.available_memory = []() -> std::optional<std::uintmax_t> { return 10; };
  run_guarded([&] { ++attempts; return passed(); }, &gate, s);
  run_guarded([&] { ++attempts; return passed(); }, nullptr, s);
  EXPECT_EQ(attempts, 2);
  EXPECT_TRUE(kaudit::audit::available_memory_bytes().has_value()) << "/proc/meminfo's MemAvailable is read";
}

// A run waiting for the batch before its retry alone lends its worker's
// place: the batch keeps its N runs going meanwhile. Before, its worker
// waited with it, and on one H100 a batch of six jobs ran on five for the
// rest of the call. Here two jobs and five items: item 0 waits (as a retry
// does) until every other item is done, and items 1 and 2 must run at once,
// which only a lent place allows.
TEST(JobPool, AWorkerThatWaitsForTheBatchLendsItsPlace) {
  kaudit::audit::JobPool pool;
  std::mutex m;
  std::condition_variable changed;
  int others_done = 0, running = 0, most_at_once = 0;
  bool waited_out = true;
  const auto limit = std::chrono::seconds(30);
  auto work = [&](std::size_t item, int slot) {
    std::unique_lock<std::mutex> lock(m);
    if (item == 0) {
      lock.unlock();
      pool.lend(slot);
      lock.lock();
      waited_out = changed.wait_for(lock, limit, [&] { return others_done == 4; });
      return;
    }
    most_at_once = std::max(most_at_once, ++running);
    changed.notify_all();
    // Items 1 and 2 each wait for a second one beside them.
    if (item <= 2) changed.wait_for(lock, limit, [&] { return running >= 2 || most_at_once >= 2; });
    --running;
    ++others_done;
    changed.notify_all();
  };
  pool.run(5, 2, work, [] { return false; });
  EXPECT_TRUE(waited_out) << "the waiting item never saw the others done";
  EXPECT_EQ(others_done, 4);
  EXPECT_EQ(most_at_once, 2) << "the place of the waiting worker was not lent";
}

// A worker takes the first item that can start now (its run fits in the
// device's memory), else the first left: an item that would wait for room
// does not hold a worker while later ones could run.
TEST(JobPool, AWorkerTakesTheFirstItemThatCanStartNow) {
  kaudit::audit::JobPool pool;
  std::vector<std::size_t> order;
  std::set<std::size_t> waiting_for_room = {0, 2};
  pool.run(
      5, 1, [&](std::size_t item, int) { order.push_back(item); }, [] { return false; },
      [&](std::size_t item, int slot) {
        EXPECT_EQ(slot, 0);
        return !waiting_for_room.count(item);
      });
  EXPECT_EQ(order, (std::vector<std::size_t>{1, 3, 4, 0, 2}));
  order.clear();
  pool.run(3, 1, [&](std::size_t item, int) { order.push_back(item); }, [] { return false; },
           [](std::size_t, int) { return false; });
  EXPECT_EQ(order, (std::vector<std::size_t>{0, 1, 2})) << "none can start now: in order";
  order.clear();
  pool.run(3, 1, [&](std::size_t item, int) { order.push_back(item); }, [] { return false; });
  EXPECT_EQ(order, (std::vector<std::size_t>{0, 1, 2})) << "no readiness asked: in order";
}

// Stopped (SIGINT), the pool takes no new item, a lent place included.
TEST(JobPool, NoItemIsTakenOnceStopped) {
  kaudit::audit::JobPool pool;
  std::atomic<int> ran{0};
  std::atomic<bool> stop{false};
  pool.run(
      10, 3,
      [&](std::size_t, int slot) {
        ++ran;
        stop = true;
        pool.lend(slot);
      },
      [&] { return stop.load(); });
  EXPECT_LE(ran.load(), 3);  // at most the items the three workers took before the stop
}
