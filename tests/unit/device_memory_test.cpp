// Runs side by side on one device fit in its memory (audit/device_memory.h):
// what a problem's run needs is learned from its runs, a run that does not
// fit waits for one under way to end, and a run alone always starts.
#include "audit/device_memory.h"
#include "audit/job_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <unistd.h>

using kaudit::audit::DeviceMemoryBudget;
using kaudit::audit::kProcessBaseMib;
using kaudit::audit::run_need_mib;
using json = nlohmann::json;

namespace {
const auto never = [] { return false; };
}

// The larger process's reserved peak and a base for each process: the
// reference gives its memory back before the submission's calls.
TEST(DeviceMemory, ARunNeedsItsLargerProcessAndBothContexts) {
  using Record = std::map<std::string, std::map<std::string, double>>;
  EXPECT_EQ(run_need_mib(Record{{"reference", {{"peak_reserved_mib", 22022}, {"peak_allocated_mib", 18978}}},
                                {"submission", {{"peak_reserved_mib", 37530}}}}),
            37530 + 2 * kProcessBaseMib);
  EXPECT_FALSE(run_need_mib(Record{}));
  // The submission's import overlaps the reference's inputs: where the two
  // together are more than either's peak, they are the need.
  EXPECT_EQ(run_need_mib(Record{{"reference", {{"peak_reserved_mib", 18000}}},
                                {"submission", {{"peak_reserved_mib", 20000}, {"import_peak_allocated_mib", 6000}}}}),
            24000 + 2 * kProcessBaseMib);
  EXPECT_EQ(run_need_mib(Record{{"reference", {{"peak_reserved_mib", 1000}}},
                                {"submission", {{"peak_reserved_mib", 20000}, {"import_peak_allocated_mib", 128}}}}),
            20000 + 2 * kProcessBaseMib);
  // The reference's expected outputs beside the submission's calls: its
  // allocated peak then counts with the submission's whole peak.
  EXPECT_EQ(run_need_mib(Record{{"reference", {{"peak_reserved_mib", 18000}, {"expected_peak_allocated_mib", 9000}}},
                                {"submission", {{"peak_reserved_mib", 20000}}}}),
            29000 + 2 * kProcessBaseMib);
  // From a kept run.json, whatever it holds: numbers in range only.
  const json doc = {{"device_memory",
                     {{"reference", {{"peak_reserved_mib", 1000}}},
                      {"submission", {{"peak_reserved_mib", "9e9"}}},
                      {"other", 7}}}};
  EXPECT_EQ(run_need_mib(doc), 1000 + 2 * kProcessBaseMib);
  EXPECT_FALSE(run_need_mib(json{{"device_memory", {{"submission", {{"peak_reserved_mib", 1e300}}}}}}));
  EXPECT_FALSE(run_need_mib(json::array()));
}

TEST(DeviceMemory, AnUnknownProblemGetsAFairShareUntilARunEnds) {
  DeviceMemoryBudget budget(80000, 4);
  EXPECT_EQ(budget.need_mib("moe"), 20000);
  budget.learn("moe", 39000);
  EXPECT_EQ(budget.need_mib("moe"), 39000);
  budget.learn("moe", 30000);  // the most a run of it needed stands
  EXPECT_EQ(budget.need_mib("moe"), 39000);
  budget.learn("huge", 1e6);  // more than the device: it runs alone
  EXPECT_EQ(budget.need_mib("huge"), 80000);
}

// Two MoE runs of 39 GB fit in 80; a third waits until one ends.
TEST(DeviceMemory, ARunThatDoesNotFitWaitsForOneUnderWayToEnd) {
  DeviceMemoryBudget budget(80000, 6);
  budget.learn("moe", 39000);
  auto a = budget.admit("moe", never);
  auto b = budget.admit("moe", never);
  EXPECT_EQ(budget.reserved_mib(), 78000);
  std::atomic<bool> told{false};
  auto third = std::async(std::launch::async, [&] {
    return budget.admit("moe", never, [&](double need) { told = need == 39000; });
  });
  EXPECT_EQ(third.wait_for(std::chrono::milliseconds(300)), std::future_status::timeout) << "three did not fit";
  a.release();
  ASSERT_EQ(third.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  auto c = third.get();
  EXPECT_TRUE(told.load()) << "the wait was not told";
  EXPECT_EQ(budget.reserved_mib(), 78000);
  b.release();
  c.release();
  EXPECT_EQ(budget.reserved_mib(), 0);
}

// A run needing more than is free starts when it would be alone: waiting
// could free nothing. Interrupted, a waiting run goes at once (to be stopped).
TEST(DeviceMemory, ARunAloneAlwaysStartsAndAnInterruptionEndsTheWait) {
  DeviceMemoryBudget budget(80000, 2);
  budget.learn("huge", 1e6);
  {
    auto alone = budget.admit("huge", never);
    EXPECT_EQ(alone.mib(), 80000);
    std::atomic<bool> stop{false};
    auto waiting = std::async(std::launch::async, [&] { return budget.admit("huge", [&] { return stop.load(); }); });
    EXPECT_EQ(waiting.wait_for(std::chrono::milliseconds(300)), std::future_status::timeout);
    stop = true;
    EXPECT_EQ(waiting.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  }
  EXPECT_EQ(budget.reserved_mib(), 0);
}

// No NVIDIA driver here (CI): nothing, never a made-up size; ids that are
// not device ids never reach the command line.
TEST(DeviceMemory, TheDevicesSizeIsReadOrNothing) {
  const std::filesystem::path marker =
      std::filesystem::temp_directory_path() / ("kaudit-device-id-" + std::to_string(::getpid()));
  std::filesystem::remove(marker);
  EXPECT_FALSE(kaudit::audit::device_memory_total_mib("0; touch " + marker.string()));
  EXPECT_FALSE(kaudit::audit::device_memory_total_mib("0;touch${IFS}" + marker.string()));
  EXPECT_FALSE(std::filesystem::exists(marker)) << "a device id ran as a command";
  std::filesystem::remove(marker);
  if (const auto mib = kaudit::audit::device_memory_total_mib("0")) {
    EXPECT_GT(*mib, 0);
  }
}

// Until a problem's need is known, one of its runs goes at a time: each
// taken for a fair share, two MoE runs of a fresh batch's first wave ran out
// of device memory together on an H100. Other problems go on beside it, and
// once its need is learned its runs go as that need allows.
TEST(DeviceMemory, OneRunOfAProblemWhoseNeedIsUnknownAtATime) {
  DeviceMemoryBudget budget(80000, 6);
  auto scout = budget.admit("moe", never);
  auto other = budget.admit("topk", never);  // another problem is not held back
  auto second = std::async(std::launch::async, [&] { return budget.admit("moe", never); });
  EXPECT_EQ(second.wait_for(std::chrono::milliseconds(300)), std::future_status::timeout)
      << "a second run of a problem whose need is unknown started";
  budget.learn("moe", 30000);  // the scout ended and said what it needed
  scout.release();
  ASSERT_EQ(second.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  auto b = second.get();
  EXPECT_EQ(b.mib(), 30000);
  auto c = budget.admit("moe", never);  // known now: two fit beside topk's share
  EXPECT_EQ(c.mib(), 30000);
}

// What the batch's workers ask before they take an item (audit/job_pool.h):
// the same answer admit() would give, without waiting.
TEST(DeviceMemory, FitsNowSaysWhetherAdmitWouldWait) {
  DeviceMemoryBudget budget(80000, 4);
  EXPECT_TRUE(budget.fits_now("moe")) << "nothing under way";
  auto scout = budget.admit("moe", never);
  EXPECT_FALSE(budget.fits_now("moe")) << "a run of it is under way while its need is unknown";
  EXPECT_TRUE(budget.fits_now("topk"));
  budget.learn("moe", 50000);
  EXPECT_TRUE(budget.fits_now("moe")) << "known now: 50000 beside the scout's fair share of 20000";
  auto other = budget.admit("topk", never);  // another fair share: 40000 reserved
  EXPECT_FALSE(budget.fits_now("moe")) << "50000 beside 40000 is more than the device";
  auto waiting = std::async(std::launch::async, [&] { return budget.admit("moe", never); });
  EXPECT_EQ(waiting.wait_for(std::chrono::milliseconds(200)), std::future_status::timeout) << "admit agrees";
  other.release();
  ASSERT_EQ(waiting.wait_for(std::chrono::seconds(30)), std::future_status::ready);
}

// A batch's workers reserve as they take items (audit.cpp): the room kept for
// an item is what its run's admit() gets, and the items taken meanwhile see
// it, so a first wave never takes two runs of a problem whose need is unknown.
TEST(DeviceMemory, RoomKeptForAnItemAsItIsTakenIsWhatItsRunGets) {
  DeviceMemoryBudget budget(80000, 4);
  EXPECT_TRUE(budget.admit_now_for("moe_a", "moe"));
  EXPECT_FALSE(budget.admit_now_for("moe_b", "moe")) << "a run of it is on its way while its need is unknown";
  EXPECT_TRUE(budget.admit_now_for("topk_a", "topk"));
  EXPECT_FALSE(budget.admit_now_for("topk_a", "topk")) << "kept once per item";
  EXPECT_EQ(budget.reserved_mib(), 40000);
  {
    auto room = budget.admit("moe", never, nullptr, "moe_a");
    EXPECT_EQ(room.mib(), 20000);
    EXPECT_EQ(budget.reserved_mib(), 40000) << "the kept room, not a second";
    budget.drop_kept("moe_a");  // the run took it: nothing left to give back
    EXPECT_EQ(budget.reserved_mib(), 40000);
  }
  EXPECT_EQ(budget.reserved_mib(), 20000) << "given back when its run ended";
  budget.drop_kept("topk_a");  // taken, never run (a saved verdict)
  EXPECT_EQ(budget.reserved_mib(), 0);
  EXPECT_TRUE(budget.admit_now_for("moe_b", "moe"));
  budget.drop_kept("moe_b");
}

// The first wave through the pool as kaudit audit wires it: two workers take
// items at the same moment; the second skips the second MoE run for top-k.
TEST(DeviceMemory, AFirstWaveTakesOneRunOfAProblemWhoseNeedIsUnknown) {
  DeviceMemoryBudget budget(80000, 2);
  const std::vector<std::pair<std::string, std::string>> items = {{"moe_a", "moe"}, {"moe_b", "moe"}, {"topk_a", "topk"}};
  kaudit::audit::JobPool pool;
  std::mutex m;
  std::condition_variable both_started;
  std::vector<std::size_t> first_wave;
  pool.run(
      items.size(), 2,
      [&](std::size_t i, int) {
        {
          std::unique_lock<std::mutex> lock(m);
          if (first_wave.size() < 2) {
            first_wave.push_back(i);
            both_started.notify_all();
            both_started.wait(lock, [&] { return first_wave.size() == 2; });  // both took theirs before either ends
          }
        }
        auto room = budget.admit(items[i].second, never, nullptr, items[i].first);
        budget.drop_kept(items[i].first);
      },
      [] { return false; }, [&](std::size_t i, int) { return budget.admit_now_for(items[i].first, items[i].second); });
  std::sort(first_wave.begin(), first_wave.end());
  EXPECT_EQ(first_wave, (std::vector<std::size_t>{0, 2}));
  EXPECT_EQ(budget.reserved_mib(), 0);
}
