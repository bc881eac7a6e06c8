// The runner's protocol end to end on the CPU (kaudit run --device cpu):
// small problems under tests/runner/problems and pure-PyTorch submissions
// under tests/runner/solutions, each with the result and the findings it must
// get. Needs Debian's python3-torch (/usr/bin/python3); skips visibly without.
#include "runner/process/machine_load.h"
#include "runner/plan/run_plan.h"
#include "runner/session/run.h"
#include "runner/process/sandbox.h"
#include "runner/process/syscall_filter.h"
#include "runner/process/task_limit.h"
#include "tests/runner/cpu_run_support.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <regex>
#include <set>
#include <string>
#include <thread>

namespace fs = std::filesystem;
using kaudit::run::RunOptions;
using nlohmann::json;

namespace {

using kaudit::test::ids;
std::string describe(const json& r) { return kaudit::test::describe(r); }

const fs::path kTests = KAUDIT_RUNNER_TESTS;

RunOptions options(const std::string& problem, const std::string& solution) {
  RunOptions o = kaudit::test::cpu_options(problem, solution);
  o.warmup = 2;
  return o;
}

// A run of the attack suite's own file (tests/attacks/NAME.py) on linear_relu.
RunOptions attack(const std::string& name) {
  RunOptions o = options("linear_relu", "clean.py");
  o.solution = kTests / ".." / "attacks" / (name + ".py");
  return o;
}

// Processes alive (not zombies) whose command line holds `marker`.
std::vector<std::string> processes_with_marker(const std::string& marker) {
  std::vector<std::string> found;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string pid = e.path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream cmd(e.path() / "cmdline", std::ios::binary), stat(e.path() / "stat");
    std::string cmdline((std::istreambuf_iterator<char>(cmd)), std::istreambuf_iterator<char>()), line;
    std::getline(stat, line);
    if (cmdline.find(marker) != std::string::npos && line.find(") Z") == std::string::npos) found.push_back(pid);
  }
  return found;
}

// The text of tests/runner/problems/BASE/FILE.
std::string problem_file(const std::string& base, const std::string& file) {
  std::ifstream in(kTests / "problems" / base / file);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A problem folder made for one test: the files of tests/runner/problems/BASE
// copied to a fresh folder, then `files` (name -> text) written over them.
fs::path problem_variant(const std::string& base, const std::string& name,
                         const std::map<std::string, std::string>& files) {
  const fs::path dir = fs::temp_directory_path() / ("kaudit_problem_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const auto& e : fs::directory_iterator(kTests / "problems" / base))
    if (e.is_regular_file()) fs::copy_file(e.path(), dir / e.path().filename());
  for (const auto& [file, text] : files) std::ofstream(dir / file) << text;
  return dir;
}

using Ids = std::set<std::string>;

}  // namespace

TEST(RunnerCpu, CleanSubmissionIsCorrectWithNoFindings) {
  SKIP_WITHOUT_TORCH();
  const json r = kaudit::run::run_submission(options("linear_relu", "clean.py"));
  EXPECT_EQ(r["schema"], "kaudit-run/1");
  EXPECT_EQ(r["result"], "correct") << describe(r);
  EXPECT_EQ(ids(r), Ids{}) << describe(r);
  ASSERT_EQ(r["correctness"].size(), 2u);
  EXPECT_EQ(r["correctness"][0]["cases"].size(), 5u);  // 3 seeds, 2 stress scales
  ASSERT_EQ(r["timing"].size(), 2u);
  for (const char* mode : {"bench", "fresh", "rewrite"}) {
    const json& m = r["timing"][1]["modes"][mode];
    EXPECT_EQ(m["n"], 6) << mode;  // num_perf_trials from problem.yaml
    EXPECT_TRUE(m["samples_passed"].get<bool>()) << mode;
    EXPECT_GT(m["median_ms"].get<double>(), 0) << mode;
    EXPECT_GT(m["tflops"].get<double>(), 0) << mode;
  }
  // flops_formula with the shape's values: 2*96*192*192 + 2*96*192.
  EXPECT_DOUBLE_EQ(r["timing"][1]["work"]["flops"].get<double>(), 2.0 * 96 * 192 * 192 + 2.0 * 96 * 192);
  for (const auto& f : r["problem_files"]) EXPECT_EQ(f["status"], "unchanged");
  // Where the time went: every step once, each shape's correctness and modes.
  std::multiset<std::string> steps;
  for (const auto& p : r["phases"]) {
    EXPECT_GE(p["seconds"].get<double>(), 0.0);
    steps.insert(p["process"].get<std::string>() + " " + p["phase"].get<std::string>());
  }
  for (const char* once : {"reference import", "reference inputs", "submission setup", "submission samples",
                           "runner comparison"})
    EXPECT_EQ(steps.count(once), 1u) << once;
  // In batches: in the sandbox the first beside the submission's calls.
  EXPECT_GE(steps.count("reference expected outputs"), 1u);
  EXPECT_EQ(steps.count("submission correctness"), 2u);
  EXPECT_EQ(steps.count("submission timing"), 6u);  // 2 shapes, 3 modes
  // The kept calls' files are a step of their own, after the last mode: not
  // counted to it (issue 27's budget per mode).
  std::vector<std::string> submission_steps;
  for (const auto& p : r["phases"])
    if (p["process"] == "submission") submission_steps.push_back(p["phase"].get<std::string>());
  const auto samples = std::find(submission_steps.begin(), submission_steps.end(), "samples");
  ASSERT_NE(samples, submission_steps.end()) << r["phases"];
  EXPECT_EQ(*std::prev(samples), "timing") << r["phases"];
  EXPECT_EQ(std::count(samples, submission_steps.end(), "timing"), 0) << r["phases"];
  // The reference's steps, and the submission's start, say where their time
  // went, part by part.
  const std::map<std::string, std::vector<std::string>> parts = {{"reference import", {"torch", "bind"}},
                                                                 {"reference inputs", {"draw", "files"}},
                                                                 // seeded samples' batches read no file
                                                                 {"reference expected outputs", {"compute", "write"}},
                                                                 {"submission start", {"torch", "bind"}}};
  int with_parts = 0;
  for (const auto& p : r["phases"]) {
    const auto want = parts.find(p["process"].get<std::string>() + " " + p["phase"].get<std::string>());
    if (want == parts.end()) continue;
    ++with_parts;
    for (const auto& part : want->second) EXPECT_GT(p["parts"].value(part, 0.0), 0.0) << part << " " << p;
  }
  EXPECT_GE(with_parts, 4) << r["phases"];
  // Stress cases really are scaled: x and w by 100 make the output ~10^4 times
  // larger, and the absolute tolerance grows with it; scaled by 0.01 it stays.
  const double atol = r["settings"]["tolerance"]["atol"];
  for (const auto& c : r["correctness"][0]["cases"]) {
    if (c["kind"] != "stress") continue;
    if (c["scale"].get<double>() > 1) EXPECT_GT(c["atol"].get<double>(), 100 * atol) << c.dump();
    else EXPECT_EQ(c["atol"].get<double>(), atol) << c.dump();
  }
}

// Runs sharing a device (kaudit audit --jobs N) time one after another, and
// each hand-over of the device waits for every other run to reach a point
// where it may pause: a run's timing modes, all shapes' and all modes', are
// one exclusive turn, taken once, not one per shape and mode.
// Two correct top-k kernels may return tied values' indices in either
// order (on the H200 an honest top-k was judged incorrect for it): an
// index output differing only there passes, and says how many elements
// it forgave; an index that points elsewhere still fails.
TEST(RunnerCpu, TiedValuesIndicesInAnotherOrderAreCorrect) {
  SKIP_WITHOUT_TORCH();
  const json other = kaudit::run::run_submission(options("tied_topk", "tied_topk_other_order.py"));
  EXPECT_EQ(other["result"], "correct") << describe(other);
  std::size_t forgiven = 0;
  for (const auto& shape : other["correctness"])
    for (const auto& c : shape["cases"]) forgiven += c.value("tie_reordered_elements", std::size_t{0});
  EXPECT_GT(forgiven, 0u) << "no tie was reordered: the test shows nothing";
  const json wrong = kaudit::run::run_submission(options("tied_topk", "tied_topk_wrong_index.py"));
  EXPECT_EQ(wrong["result"], "incorrect") << describe(wrong);
}

TEST(RunnerCpu, AllTimingModesAreOneExclusiveTurn) {
  SKIP_WITHOUT_TORCH();
  auto o = options("linear_relu", "clean.py");
  o.device_turns = std::make_shared<kaudit::run::DeviceTurns>();
  const json r = kaudit::run::run_submission(o);
  EXPECT_EQ(r["result"], "correct") << describe(r);
  EXPECT_EQ(ids(r), Ids{}) << describe(r);
  ASSERT_TRUE(r.contains("device_turns")) << describe(r);
  EXPECT_EQ(r["device_turns"]["exclusive"], 1) << r["device_turns"].dump();
  EXPECT_GE(r["device_turns"]["shared"].get<int>(), 2) << r["device_turns"].dump();
  // Files are written and read without a turn: the reference's inputs (a
  // seed each), every correctness call's outputs and the reference's
  // expected outputs each set the device aside.
  int cases = 0;
  for (const auto& shape : r["correctness"]) cases += static_cast<int>(shape["cases"].size());
  EXPECT_GE(r["device_turns"]["set_aside"].get<int>(), 2 * cases) << r["device_turns"].dump();
  ASSERT_EQ(r["timing"].size(), 2u);
  for (const auto& t : r["timing"])
    for (const char* mode : {"bench", "fresh", "rewrite"}) {
      EXPECT_EQ(t["modes"][mode]["n"], 6) << mode;
      EXPECT_TRUE(t["modes"][mode]["samples_passed"].get<bool>()) << mode << " " << t.dump();
    }
  // Without a shared device there are no turns to count.
  const json alone = kaudit::run::run_submission(options("linear_relu", "clean.py"));
  EXPECT_FALSE(alone.contains("device_turns"));
}

// Two runs share one device: `slow` is in a long first call while `timer`
// waits to time. The timer starts once the slow run announced its first
// correctness phase (RunOptions::on_phase), so that the slow run is in its
// first call, not at a yield point, when the timer comes to wait. Returns
// {slow's run.json, timer's}.
std::pair<json, json> beside_a_timer(const std::string& slow_solution, double call_timeout_s = 3) {
  const auto turns = std::make_shared<kaudit::run::DeviceTurns>();
  auto slow = options("linear_relu", slow_solution);
  auto timer = options("linear_relu", "clean.py");
  for (auto* o : {&slow, &timer}) {
    o->device_turns = turns;
    o->call_timeout_s = call_timeout_s;
    o->setup_timeout_s = 60;
    o->off_grid_shapes = 0;
  }
  std::mutex m;
  std::condition_variable cv;
  bool in_first_call = false;
  slow.on_phase = [&](const std::string& step) {
    if (step != "correctness, shape 0") return;
    std::lock_guard<std::mutex> lock(m);
    in_first_call = true;
    cv.notify_all();
  };
  json slow_run;
  std::thread t([&] { slow_run = kaudit::run::run_submission(slow); });
  {
    std::unique_lock<std::mutex> lock(m);
    cv.wait_for(lock, std::chrono::seconds(120), [&] { return in_first_call; });
  }
  const json timer_run = kaudit::run::run_submission(timer);
  t.join();
  return {slow_run, timer_run};
}

// A first call that outlasts a call's limit with no build to show for it (no
// compiler process) while another run waits to time holds the shared device
// no longer: it is stopped, saying so (kaudit audit runs it again alone),
// and the run that waited times.
TEST(RunnerCpu, FirstCallWithoutABuildDoesNotHoldRunsWaitingToTime) {
  SKIP_WITHOUT_TORCH();
  const auto [slow, timer] = beside_a_timer("slow_first_call.py");
  ASSERT_EQ(slow["result"], "error") << describe(slow) << slow.value("first_calls", json()).dump();
  EXPECT_NE(slow["error"]["reason"].get<std::string>().find("while other runs of the batch waited to time"),
            std::string::npos)
      << describe(slow);
  EXPECT_EQ(timer["result"], "correct") << describe(timer);
  EXPECT_EQ(timer["device_turns"]["exclusive"], 1) << timer["device_turns"].dump();
}

// How long a run beside a timer ran before it stepped aside for it (its
// error says so), or 1000 where it did not step aside.
int stepped_aside_after_s(const json& slow) {
  const std::string why = slow.value("error", json::object()).value("reason", std::string());
  std::smatch after;
  if (slow["result"] != "error" || why.find("while other runs of the batch waited to time") == std::string::npos ||
      !std::regex_search(why, after, std::regex("stopped after ([0-9]+) s")))
    return 1000;
  return std::stoi(after[1]);
}

// Once the first call's forward has returned, what it launched holds runs
// waiting to time kStepAsideAfterReturnS, not a call's limit: on an H100
// three runs waited 57 to 84 s to time behind a kernel that never ended.
// The run steps aside as before (kaudit audit makes it again alone).
TEST(RunnerCpu, AFirstCallWhoseForwardReturnedStepsAsideSoonForRunsWaitingToTime) {
  SKIP_WITHOUT_TORCH();
  const double call_s = 60;
  const auto [slow, timer] = beside_a_timer("late_after_return.py", call_s);
  const std::string why = slow.value("error", json::object()).value("reason", std::string());
  EXPECT_NE(why.find("whose forward had returned"), std::string::npos) << describe(slow);
  EXPECT_LT(stepped_aside_after_s(slow), call_s) << "held the runs waiting to time for a call's limit: " << why;
  EXPECT_EQ(timer["result"], "correct") << describe(timer);
}

// A first call whose forward has not returned, with no build to show for
// it, holds runs waiting to time kStepAsideWithoutBuildS (20 s), not a
// call's limit: on an H100 four runs waited 39 to 62 s to time behind a
// kernel that never ended inside forward. slow_first_call.py sleeps 40 s in
// its first call: under the call's limit, past the step-aside.
TEST(RunnerCpu, AFirstCallWithoutABuildStepsAsideBeforeACallsLimitForRunsWaitingToTime) {
  SKIP_WITHOUT_TORCH();
  const double call_s = 60;
  const auto [slow, timer] = beside_a_timer("slow_first_call.py", call_s);
  const std::string why = slow.value("error", json::object()).value("reason", std::string());
  EXPECT_NE(why.find("its first call, with no build running for"), std::string::npos) << describe(slow);
  EXPECT_LT(stepped_aside_after_s(slow), 40) << "held the runs waiting to time until the call ended: " << why;
  EXPECT_EQ(timer["result"], "correct") << describe(timer);
}

// A first call with no build for two calls' limits is a kernel that never
// ends, on a device of its own too: it times out there, not at the set-up
// budget. On the H200 such a run held the device alone for 600 s while the
// batch waited. A build keeps the budget: a compiler process of the call's,
// or a worker started before it (a compile pool) spending CPU time.
TEST(RunnerCpu, AFirstCallWithoutABuildTimesOutAtTwoCallLimitsAlone) {
  SKIP_WITHOUT_TORCH();
  const auto alone = [](const std::string& solution) {
    auto o = options("linear_relu", solution);
    o.call_timeout_s = 3;
    o.setup_timeout_s = 60;
    o.off_grid_shapes = 0;
    return kaudit::run::run_submission(o);
  };
  const json slow = alone("slow_first_call.py");  // sleeps 40 s in its first call
  ASSERT_EQ(slow["result"], "error") << describe(slow);
  const std::string why = slow["error"]["reason"];
  EXPECT_NE(why.find("its first call, with no build running for"), std::string::npos) << why;
  EXPECT_EQ(why.find("while other runs of the batch waited to time"), std::string::npos) << why;
  // The message counts what it says: the call ran two call limits at least
  // (on the H200 it said "timed out after 0 s").
  std::smatch after;
  ASSERT_TRUE(std::regex_search(why, after, std::regex("timed out after ([0-9]+) s"))) << why;
  EXPECT_GE(std::stoi(after[1]), 6) << why;
  for (const char* builds : {"lazy_build_compiler.py", "pool_build_first_call.py"}) {
    const json r = alone(builds);  // 8 s builds, against 6 s without one
    EXPECT_EQ(r["result"], "correct") << builds << ": " << describe(r) << r.value("first_calls", json()).dump();
  }
}

// A build (a compiler process of the call's) keeps the set-up budget, other
// runs waiting to time or not.
TEST(RunnerCpu, FirstCallThatBuildsKeepsTheSetupBudgetBesideATimer) {
  SKIP_WITHOUT_TORCH();
  const auto [slow, timer] = beside_a_timer("lazy_build_compiler.py");
  EXPECT_EQ(slow["result"], "correct") << describe(slow) << slow.value("first_calls", json()).dump();
  EXPECT_EQ(timer["result"], "correct") << describe(timer);
}

// While a first call builds and another run waits to time, the build needs
// no device: the building run's processes other than the build are held
// stopped and its turn is lent to the timer, which times during the build
// instead of after it; the build runs on, and the run goes on once the timer
// is done (first_calls[].lent_while_building_s). On the H200 runs waited up
// to 130 s for 60 s load_inline builds.
TEST(RunnerCpu, ABuildLendsTheDeviceToARunWaitingToTime) {
  SKIP_WITHOUT_TORCH();
  const auto [slow, timer] = beside_a_timer("lazy_build_long.py");
  EXPECT_EQ(slow["result"], "correct") << describe(slow) << slow.value("first_calls", json()).dump();
  EXPECT_EQ(timer["result"], "correct") << describe(timer);
  ASSERT_FALSE(slow["first_calls"].empty());
  const json& first = slow["first_calls"][0];
  ASSERT_TRUE(first.contains("lent_while_building_s")) << slow["first_calls"].dump();
  EXPECT_GT(first["lent_while_building_s"].get<double>(), 0);
  EXPECT_FALSE(first.value("build_processes", json::array()).empty()) << first.dump();
  // The timer waited for the lend, not for the build to end.
  EXPECT_LT(timer["device_wait_seconds"].get<double>(),
            first["seconds"].get<double>() + first["lent_while_building_s"].get<double>())
      << timer["device_wait_seconds"] << " " << first.dump();
}

// A run sized for a CPU (kaudit audit's default there) runs the graded shape
// whose sizes have the smallest product, and says which of how many it ran.
TEST(RunnerCpu, SmallestShapeOnlyWhenAsked) {
  SKIP_WITHOUT_TORCH();
  auto o = options("linear_relu", "clean.py");
  o.shapes = "smallest";
  const json r = kaudit::run::run_submission(o);
  EXPECT_EQ(r["result"], "correct") << describe(r);
  ASSERT_EQ(r["shapes"].size(), 1u) << r["shapes"].dump();
  EXPECT_EQ(r["shapes"][0]["rows"], 64);  // 64*128*128 < 96*192*192
  EXPECT_EQ(r["settings"]["shapes"], (json{{"selection", "smallest"}, {"graded", 2}, {"run", {0}}}));
  ASSERT_EQ(r["timing"].size(), 1u);
  o.shapes = "largest";
  EXPECT_THROW(kaudit::run::run_submission(o), std::runtime_error);
}

TEST(RunnerCpu, LargeInputsAreSampledOncePerMode) {
  SKIP_WITHOUT_TORCH();
  auto o = options("linear_relu", "clean.py");
  o.large_input_bytes = 1;  // every shape counts as large
  const json r = kaudit::run::run_submission(o);
  EXPECT_EQ(r["result"], "correct") << describe(r);
  for (const auto& t : r["timing"])
    for (const char* mode : {"bench", "fresh", "rewrite"}) {
      const json& samples = t["modes"][mode]["samples"];
      ASSERT_EQ(samples.size(), 1u) << mode;
      EXPECT_LT(samples[0]["call"].get<int>(), t["modes"][mode]["n"].get<int>()) << mode;
    }
}

TEST(RunnerCpu, CheckedCallsAreDrawnAfresh) {
  SKIP_WITHOUT_TORCH();
  // Drawn by the runner per mode, told only after each call: over the modes
  // and shapes of one run, not always the same calls.
  const json r = kaudit::run::run_submission(options("linear_relu", "clean.py"));
  std::set<std::vector<int>> draws;
  for (const auto& t : r["timing"])
    for (const auto& [mode, m] : t["modes"].items()) {
      std::vector<int> calls;
      for (const auto& s : m["samples"]) calls.push_back(s["call"]);
      EXPECT_EQ(calls.size(), 3u) << mode;
      draws.insert(calls);
    }
  EXPECT_GT(draws.size(), 1u) << describe(r);
}

TEST(RunnerCpu, OneElementOffInAStressCaseIsTolerated) {
  SKIP_WITHOUT_TORCH();
  const json r = kaudit::run::run_submission(options("linear_relu", "stress_edge_flip.py"));
  EXPECT_EQ(r["result"], "correct") << describe(r);
  int tolerated = 0;
  for (const auto& shape : r["correctness"])
    for (const auto& c : shape["cases"])
      if (c.contains("tolerated_mismatches")) {
        EXPECT_EQ(c["kind"], "stress");
        EXPECT_EQ(c["scale"], 100.0);
        tolerated += c["tolerated_mismatches"].get<int>();
      }
  EXPECT_EQ(tolerated, 2) << "one element in each shape's x100 case";
}

// `solution` on linear_relu without the sandbox: the write lands, and the
// runner's seal on the reference's input files finds it.
void expect_unsandboxed_seal_broken(const std::string& solution) {
  auto o = options("linear_relu", solution);
  o.unsafe_no_sandbox = true;
  const json u = kaudit::run::run_submission(o);
  EXPECT_EQ(u["result"], "error") << describe(u);
  EXPECT_NE(u["error"]["reason"].get<std::string>().find("input files were changed"), std::string::npos)
      << describe(u);
  EXPECT_TRUE(ids(u).count("problem-file-changed")) << describe(u);
  EXPECT_FALSE(u["isolation"]["sandboxed"].get<bool>());
}

TEST(RunnerCpu, ReferenceInputsChangedUnderItAreAnError) {
  SKIP_WITHOUT_TORCH();
  // In the sandbox the reference's inputs are read-only: the write fails.
  const json r = kaudit::run::run_submission(options("linear_relu", "tamper_reference_inputs.py"));
  EXPECT_EQ(r["result"], "error") << describe(r);
  EXPECT_NE(r["error"]["reason"].get<std::string>().find("Read-only file system"), std::string::npos) << describe(r);
  expect_unsandboxed_seal_broken("tamper_reference_inputs.py");
}

// Sandboxed, the submission's import runs beside the reference's input
// generation (issue 27: a build at import no longer waits for it): the
// import_handshake problem's reference draws nothing until the solution's
// import has left its mark, and raises after 45 s without it.
TEST(RunnerCpu, TheSubmissionImportsWhileTheReferenceDrawsItsInputs) {
  SKIP_WITHOUT_TORCH();
  if (!kaudit::run::sandbox_support().available) GTEST_SKIP() << "no sandbox here: the import waits for the inputs";
  const json r = kaudit::run::run_submission(options("import_handshake", "mark_import.py"));
  EXPECT_EQ(r["result"], "correct") << describe(r);
  EXPECT_TRUE(r["isolation"]["sandboxed"].get<bool>());
  // The submission's set-up phases are recorded (on its own thread) after
  // the reference's, in order.
  std::vector<std::string> order;
  for (const auto& p : r["phases"]) order.push_back(p["process"].get<std::string>() + " " + p["phase"].get<std::string>());
  const std::vector<std::string> first = {"reference import", "reference inputs", "submission start", "submission setup"};
  ASSERT_GE(order.size(), first.size()) << r["phases"].dump();
  EXPECT_EQ(std::vector<std::string>(order.begin(), order.begin() + 4), first) << r["phases"].dump();
  // Their began_s shows the overlap: the submission's set-up began before
  // the reference's inputs were done (its reference waited for it).
  const json& inputs = r["phases"][1];
  const json& setup = r["phases"][3];
  ASSERT_TRUE(inputs.contains("began_s") && setup.contains("began_s")) << r["phases"].dump();
  EXPECT_LT(setup["began_s"].get<double>(), inputs["began_s"].get<double>() + inputs["seconds"].get<double>())
      << r["phases"].dump();
}

// Intervals "begin end" (CLOCK_MONOTONIC seconds), one a line.
static std::vector<std::pair<double, double>> read_intervals(const fs::path& file) {
  std::vector<std::pair<double, double>> out;
  std::ifstream in(file);
  double a = 0, b = 0;
  while (in >> a >> b) out.emplace_back(a, b);
  return out;
}

// In the sandbox, where the submission's process cannot see exp/, the
// reference computes the expected outputs of every correctness case (and
// each mode's seeded samples) beside the submission's calls, but never
// during its timed calls: a timing mode's exclusive turn waits for the job
// in progress, and the reference waits at its next yield point. Its
// reference here takes 50 ms a call, so that its jobs span the submission's
// timing, and both log when each call ran.
TEST(RunnerCpu, TheReferenceComputesExpectedOutputsBesideTheCallsButNeverDuringTimedOnes) {
  SKIP_WITHOUT_TORCH();
  if (!kaudit::run::sandbox_support().available) GTEST_SKIP() << "no sandbox here: the expected outputs come after";
  const std::string reference = problem_file("linear_relu", "reference.py") + R"(

import os as _os
import sys as _sys
import time as _time

_forward = Model.forward


def _logged_forward(self, x, w):
    began = _time.monotonic()
    _time.sleep(0.05)
    out = _forward(self, x, w)
    xfer = getattr(_sys.modules.get("__main__"), "CONFIG", {}).get("xfer", "")
    with open(_os.path.join(xfer, "exp", "reference-calls.log"), "a") as f:
        f.write("%.6f %.6f\n" % (began, _time.monotonic()))
    return out


Model.forward = _logged_forward
)";
  auto o = options("linear_relu", "log_calls.py");
  o.problem = problem_variant("linear_relu", "slow_reference", {{"reference.py", reference}});
  o.keep_temp = true;
  // The anchor is taken just before the run's start (began_s counts from
  // after it): the plan's first making, which starts an interpreter and
  // probes the machine, is made now, so that the run's own is from its caches.
  (void)kaudit::run::make_run_plan(o);
  const auto anchor = std::chrono::steady_clock::now();
  const json r = kaudit::run::run_submission(o);
  EXPECT_EQ(r["result"], "correct") << describe(r);
  ASSERT_TRUE(r.contains("temp_dir")) << describe(r);
  const fs::path temp = r["temp_dir"].get<std::string>();
  const auto reference_calls = read_intervals(temp / "xfer" / "exp" / "reference-calls.log");
  const auto submission_calls = read_intervals(temp / "xfer" / "out" / "calls.log");
  fs::remove_all(temp);
  ASSERT_FALSE(reference_calls.empty());
  ASSERT_FALSE(submission_calls.empty());

  // The first batch of expected outputs began before the submission's first
  // timing mode: it was computed beside its calls.
  double first_batch = 1e9, first_timing = 1e9, last_submission = 0;
  int beside_jobs = 0;
  std::vector<std::pair<double, double>> timing;  // the timing phases, seconds from the anchor
  const double run_began = std::chrono::duration<double>(anchor.time_since_epoch()).count();
  for (const auto& p : r["phases"]) {
    const double began = p["began_s"].get<double>(), ended = began + p["seconds"].get<double>();
    if (p["phase"] == "expected outputs" && began < first_batch) {
      first_batch = began;
      beside_jobs = p["jobs"].get<int>();
    }
    if (p["process"] == "submission") last_submission = std::max(last_submission, ended);
    if (p["phase"] == "timing") {
      first_timing = std::min(first_timing, began);
      timing.emplace_back(run_began + began, run_began + ended);
    }
  }
  EXPECT_LT(first_batch, first_timing) << r["phases"].dump();
  EXPECT_GE(beside_jobs, 10) << "every correctness case of 2 shapes, 5 cases each: " << r["phases"].dump();
  EXPECT_LT(first_batch, last_submission) << r["phases"].dump();
  // No reference call overlaps a submission call made inside a timing mode.
  // A timing phase's calls come after its exclusive turn was given. The
  // anchor is taken a little before the run's clock starts, so a phase seen
  // from it begins and ends a little early: the margin keeps the calls just
  // before it out, and those just after it (probe calls, beside which the
  // reference may work) are out anyway.
  const double margin = 0.2;
  int timed = 0;
  for (const auto& [b, e] : submission_calls) {
    const bool in_timing = std::any_of(timing.begin(), timing.end(), [&](const auto& t) {
      return b > t.first + margin && e < t.second;
    });
    if (!in_timing) continue;
    ++timed;
    for (const auto& [rb, re] : reference_calls)
      EXPECT_TRUE(re <= b || rb >= e) << "a reference call (" << rb << ", " << re << ") ran during a timed call ("
                                      << b << ", " << e << ")";
  }
  EXPECT_GT(timed, 0) << "no timed call found: " << r["phases"].dump();
}

// Without the sandbox the submission's process could read exp/: nothing of
// the expected outputs exists until it is done, then one batch.
TEST(RunnerCpu, UnsandboxedTheExpectedOutputsComeOnceTheSubmissionIsDone) {
  SKIP_WITHOUT_TORCH();
  auto o = options("linear_relu", "clean.py");
  o.unsafe_no_sandbox = true;
  const json r = kaudit::run::run_submission(o);
  EXPECT_EQ(r["result"], "correct") << describe(r);
  double last_submission = 0;
  std::vector<double> batches;
  for (const auto& p : r["phases"]) {
    const double began = p["began_s"].get<double>();
    if (p["process"] == "submission") last_submission = std::max(last_submission, began + p["seconds"].get<double>());
    if (p["phase"] == "expected outputs") batches.push_back(began);
  }
  ASSERT_EQ(batches.size(), 1u) << r["phases"].dump();
  EXPECT_GE(batches[0], last_submission) << r["phases"].dump();
}

// Without the sandbox nothing of the submission runs before the reference's
// inputs are sealed: rewritten at import, the seal finds them changed.
TEST(RunnerCpu, UnsandboxedTheImportWaitsForTheReferenceInputsSeal) {
  SKIP_WITHOUT_TORCH();
  expect_unsandboxed_seal_broken("tamper_inputs_at_import.py");
  // Sandboxed the files are read-only to it: they stay as drawn.
  const json r = kaudit::run::run_submission(options("linear_relu", "tamper_inputs_at_import.py"));
  EXPECT_EQ(r["result"], "correct") << describe(r);
}

// Whatever else holds, the submission's processes cannot make the system
// calls that only widen what they reach of the kernel (a namespace of their
// own, eBPF, io_uring, ptrace, another process's memory): the syscall filter
// (runner/process/syscall_filter.h) refuses them in the sandbox and without it, and
// run.json's isolation says so. Forking still works.
TEST(RunnerCpu, SyscallsASubmissionNeverNeedsAreRefused) {
  SKIP_WITHOUT_TORCH();
  if (!kaudit::run::syscall_filter().available()) GTEST_SKIP() << kaudit::run::syscall_filter().why_not;
  for (const bool sandboxed : {true, false}) {
    if (sandboxed && !kaudit::run::sandbox_support().available) continue;
    auto o = options("linear_relu", "syscall_probe.py");
    o.unsafe_no_sandbox = !sandboxed;
    o.modes = {"fresh"};
    const json r = kaudit::run::run_submission(o);
    EXPECT_EQ(r["result"], "correct") << describe(r);
    const std::string protections = r["isolation"]["protections"].dump();
    EXPECT_NE(protections.find("seccomp filter"), std::string::npos) << protections;
    const std::string err = r["submission_process"]["stderr_tail"].get<std::string>();
    ASSERT_NE(err.find("kaudit-syscall-probe"), std::string::npos) << describe(r);
    for (const char* refused : {"unshare_user=EPERM", "bpf=EPERM", "io_uring_setup=EPERM", "ptrace=EPERM",
                                "process_vm_readv=EPERM", "keyctl=EPERM", "userfaultfd=EPERM", "clone3=ENOSYS",
                                "fork=ok"})
      EXPECT_NE(err.find(refused), std::string::npos) << (sandboxed ? "sandboxed: " : "unsandboxed: ") << refused
                                                      << " in " << err;
  }
}

// A run's child and everything it starts share one count of tasks
// (processes and threads), held by a cgroup of the run's own: a fork bomb
// is refused at the limit rather than taking the machine, the run goes on,
// and run.json's isolation says what held.
TEST(RunnerCpu, ProcessesBeyondTheTaskLimitAreRefused) {
  SKIP_WITHOUT_TORCH();
  if (!kaudit::run::task_limit_support().available) GTEST_SKIP() << kaudit::run::task_limit_support().why_not;
  auto o = options("linear_relu", "fork_many.py");
  o.max_tasks = 64;
  o.modes = {"fresh"};
  const json r = kaudit::run::run_submission(o);
  EXPECT_EQ(r["result"], "correct") << describe(r);
  EXPECT_NE(r["isolation"]["protections"].dump().find("at most 64 tasks"), std::string::npos) << r["isolation"];
  const std::string err = r["submission_process"]["stderr_tail"].get<std::string>();
  const std::smatch m = [&] {
    std::smatch found;
    std::regex_search(err, found, std::regex("kaudit-fork-probe started=([0-9]+) refused=([0-9]+)"));
    return found;
  }();
  ASSERT_EQ(m.size(), 3u) << describe(r);
  EXPECT_LT(std::stoi(m[1]), 64) << err;
  EXPECT_GT(std::stoi(m[2]), 0) << err;
}

// linear_relu with `lines` run first in its get_inputs (indented by 4).
static fs::path linear_relu_drawing_first(const std::string& name, const std::string& lines) {
  const std::string reference = std::regex_replace(problem_file("linear_relu", "reference.py"),
                                                   std::regex("def get_inputs\\(\\):\n"),
                                                   "def get_inputs():\n    " + lines + "\n");
  EXPECT_NE(reference.find(lines), std::string::npos) << reference;
  return problem_variant("linear_relu", name, {{"reference.py", reference}});
}

// A reference too slow for the device: each case comes well within the
// step limit, but all of them together would take minutes. The input
// generation as a whole gets the set-up budget, and the run says so, rather
// than the audit waiting out every case (the kda_chunked reference on a CPU
// held the README's main command for 236 s this way).
TEST(RunnerCpu, ReferenceInputsThatOutlastTheSetupBudgetEndTheRun) {
  SKIP_WITHOUT_TORCH();
  const fs::path problem = linear_relu_drawing_first("slow_inputs", "import time\n    time.sleep(1.0)");
  auto o = options("linear_relu", "clean.py");
  o.problem = problem;
  o.setup_timeout_s = 6;
  o.phase_timeout_s = 4;
  const json r = kaudit::run::run_submission(o);
  ASSERT_EQ(r["result"], "error") << describe(r);
  EXPECT_NE(r["error"]["reason"].get<std::string>().find("within the set-up budget of 6 s"), std::string::npos)
      << describe(r);
  double inputs_s = -1;
  for (const auto& p : r["phases"])
    if (p["phase"] == "inputs" && p["process"] == "reference") inputs_s = p["seconds"].get<double>();
  EXPECT_GT(inputs_s, 5.0) << r["phases"];  // stopped by the budget (the reason), not before it
}

// The reference's own process killed while it computes expected outputs
// (on the H200, six runs sharing the machine's memory; here it kills itself
// once the harness holds its check jobs): a fault of the machine. The run
// says why the reference ended and draws no finding from the comparisons
// that did not happen (correct-only-untimed was drawn from them before).
TEST(RunnerCpu, AReferenceThatDiesLeavesNoFindingFromComparisons) {
  SKIP_WITHOUT_TORCH();
  const std::string reference = std::regex_replace(
      problem_file("linear_relu", "reference.py"), std::regex("    def forward\\(self, x, w\\):\n"),
      "    def forward(self, x, w):\n"
      "        import os, signal, sys\n"
      "        f = sys._getframe()\n"
      "        while f is not None and not (f.f_code.co_name == 'answer_batches' and 'jobs' in f.f_locals):\n"
      "            f = f.f_back\n"
      "        if f is not None:\n"
      "            os.kill(os.getpid(), signal.SIGKILL)\n");
  ASSERT_NE(reference.find("SIGKILL"), std::string::npos) << reference;
  const fs::path problem = problem_variant("linear_relu", "reference_dies", {{"reference.py", reference}});
  auto o = options("linear_relu", "clean.py");
  o.problem = problem;
  const json r = kaudit::run::run_submission(o);
  ASSERT_EQ(r["result"], "error") << describe(r);
  EXPECT_EQ(r["error"]["phase"], "reference") << describe(r);
  // Through the sandbox the signal arrives as exit status 137 (128 + 9).
  const std::string reason = r["error"]["reason"];
  EXPECT_TRUE(std::regex_search(reason, std::regex("ended \\((exit status 137, )?signal 9 \\(SIGKILL\\)\\) before "
                                                   "computing expected outputs, killed from outside the run")))
      << reason;
  EXPECT_NE(r["error"]["detail"]["reference_exit"].get<std::string>().find("signal 9 (SIGKILL)"), std::string::npos)
      << describe(r);
  EXPECT_EQ(ids(r), Ids{}) << describe(r);
  EXPECT_TRUE(r["timing"].empty()) << r["timing"].dump();
}

// A reference that raises on the timed calls' own draws (tests/runner/
// problems/seed_picky: it answers only the correctness seeds' inputs). On the
// H100 a reference that raised on one job left a clean MoE kernel's sampled
// timed calls unanswered, and they were counted wrong: `correct-only-untimed`,
// a cheat. The run is the reference's error; the samples it could not answer
// are skipped, and nothing is held against the submission.
TEST(RunnerCpu, SamplesTheReferenceCannotAnswerAreSkippedNeverWrong) {
  SKIP_WITHOUT_TORCH();
  const json r = kaudit::run::run_submission(options("seed_picky", "seed_picky_clean.py"));
  ASSERT_EQ(r["result"], "error") << describe(r);
  EXPECT_EQ(r["error"]["phase"], "reference") << describe(r);
  EXPECT_NE(r["error"]["reason"].get<std::string>().find("inputs not drawn from a correctness seed"), std::string::npos)
      << describe(r);
  EXPECT_EQ(ids(r), Ids{}) << describe(r);
  int skipped = 0;
  for (const auto& shape : r["timing"])
    for (const auto& [mode, m] : shape["modes"].items())
      for (const auto& s : m["samples"]) {
        EXPECT_NE(s["status"], "failed") << mode << ": " << s;
        if (s["status"] == "skipped") {
          ++skipped;
          EXPECT_NE(s["reason"].get<std::string>().find("the reference raised on these inputs"), std::string::npos) << s;
        }
      }
  EXPECT_GE(skipped, 1) << "the fresh samples are drawn from the runner's seeds: " << r["timing"].dump();
  EXPECT_FALSE(r["input_probes"]["judged"].get<bool>()) << describe(r);
  EXPECT_NE(r["input_probes"]["reason"].get<std::string>().find("the run has an error"), std::string::npos)
      << describe(r);
  for (const auto& c : r["correctness"][0]["cases"]) EXPECT_EQ(c["status"], "passed") << c;
}

// KernelBench-Hard's paged attention names its shapes' sizes in lower case
// and its globals in capitals: each graded shape still draws its own inputs.
// Before, every shape drew the default one, and a kernel written for that
// size alone passed every shape.
TEST(RunnerCpu, ShapeKeysSetTheGlobalsTheyNameInOtherCase) {
  SKIP_WITHOUT_TORCH();
  const json r = kaudit::run::run_submission(options("upper_globals", "upper_globals_default_only.py"));
  EXPECT_EQ(r["result"], "incorrect") << describe(r);
  ASSERT_EQ(r["correctness"].size(), 2u) << describe(r);
  EXPECT_TRUE(r["correctness"][0]["passed"].get<bool>()) << describe(r);
  EXPECT_FALSE(r["correctness"][1]["passed"].get<bool>()) << describe(r);
  // The other way round too: keys in capitals, globals in lower case.
  auto o = options("upper_globals", "upper_globals_default_only.py");
  o.problem = problem_variant(
      "upper_globals", "lower_globals",
      {{"reference.py", std::regex_replace(std::regex_replace(problem_file("upper_globals", "reference.py"),
                                                              std::regex("ROWS"), "rows"),
                                           std::regex("COLS"), "cols")},
       {"shapes.py", "SHAPES = [{\"ROWS\": 64, \"COLS\": 32}, {\"ROWS\": 96, \"COLS\": 48}]\n"}});
  const json lower = kaudit::run::run_submission(o);
  ASSERT_EQ(lower["correctness"].size(), 2u) << describe(lower);
  EXPECT_FALSE(lower["correctness"][1]["passed"].get<bool>()) << "shape 1 drew the default inputs: " << describe(lower);
}

// A call that returns two reused tensors is one reused call: the message
// counts calls ("On shape 0 142 of 75 calls" counted tensors before).
TEST(RunnerCpu, ReusedOutputsAreCountedByCall) {
  SKIP_WITHOUT_TORCH();
  const std::string reference =
      std::regex_replace(problem_file("linear_relu", "reference.py"),
                         std::regex("        return torch.relu\\(x @ w \\+ self.bias\\)\n"),
                         "        y = torch.relu(x @ w + self.bias)\n        return y, y * 2\n");
  ASSERT_NE(reference.find("return y, y * 2"), std::string::npos) << reference;
  auto o = options("linear_relu", "two_outputs_reused.py");
  o.problem = problem_variant("linear_relu", "two_outputs", {{"reference.py", reference}});
  o.modes = {"bench"};
  const json r = kaudit::run::run_submission(o);
  EXPECT_EQ(r["result"], "correct") << describe(r);
  bool found = false;
  for (const auto& f : r["findings"]) {
    if (f["id"] != "output-reused") continue;
    found = true;
    const std::string m = f["message"];
    std::smatch n;
    ASSERT_TRUE(std::regex_search(m, n, std::regex("([0-9]+) of ([0-9]+) calls"))) << m;
    EXPECT_LE(std::stoi(n[1]), std::stoi(n[2])) << m;
    EXPECT_GT(std::stoi(n[1]), 0) << m;
  }
  EXPECT_TRUE(found) << describe(r);
}

// Fresh inputs differ from the benchmark's in identity and contents only:
// an honest element-wise kernel on 4 MiB tensors took 15-35x longer on them
// (every fresh call's output drew new pages) and was judged benchmark-aware.
// Every mode now starts from the same memory state (settled allocator) and
// cache state (the last-level cache written over before each timed call).
TEST(RunnerCpu, HonestElementwiseIsNotSlowerOnFreshInputs) {
  SKIP_WITHOUT_TORCH();
  auto o = options("silu_mul", "silu_mul_clean.py");
  o.problem = problem_variant("silu_mul", "silu_fresh", {{"shapes.py", "SHAPES = [dict(rows=1024, cols=1024)]\n"}});
  const json r = kaudit::run::run_submission(o);
  EXPECT_EQ(r["result"], "correct") << describe(r);
  EXPECT_FALSE(ids(r).count("speedup-vanishes-with-fresh-inputs")) << r["timing"].dump();
  ASSERT_EQ(r["timing"].size(), 1u) << describe(r);
  EXPECT_LT(r["timing"][0]["fresh_over_bench"].get<double>(), 5.0) << r["timing"].dump();
}

TEST(RunnerCpu, KernelBenchFormatRunsUnchanged) {
  SKIP_WITHOUT_TORCH();
  auto o = options("kb_softplus", "kb_softplus_clean.py");
  o.modes = {"bench", "fresh"};
  const json r = kaudit::run::run_submission(o);
  EXPECT_EQ(r["problem"]["format"], "kernelbench");
  EXPECT_EQ(r["result"], "correct") << describe(r);
  EXPECT_EQ(ids(r), Ids{}) << describe(r);
  EXPECT_EQ(r["timing"][0]["modes"]["bench"]["n"], 10);  // no num_perf_trials: the CPU default
}

// A timed call's inputs in the fresh and rewrite modes come from a seed the
// runner draws; the reference draws them again itself from that seed, so a
// submission that rigs the generator in its own process (every fresh input
// the same, and a memo on their values) is checked on the inputs it should
// have had. Those calls' input files are never written (the reference needs
// none): samples say `inputs_from: seed`.
TEST(RunnerCpu, RiggedGeneratorInTheSubmissionsProcessIsCheckedOnTheSeedsInputs) {
  SKIP_WITHOUT_TORCH();
  const json r = kaudit::run::run_submission(attack("samples_rigged_generator"));
  EXPECT_NE(r["result"], "correct") << describe(r);
  EXPECT_FALSE(r["timing"][0]["modes"]["fresh"]["samples_passed"].get<bool>()) << r["timing"].dump().substr(0, 2000);
  const auto got = ids(r);
  // The sample says why: the inputs drawn in its process are not the seed's.
  bool told = false;
  for (const auto& sample : r["timing"][0]["modes"]["fresh"]["samples"])
    told |= sample.value("reason", std::string()).find("fingerprints differ") != std::string::npos;
  EXPECT_TRUE(told) << r["timing"][0]["modes"]["fresh"].dump().substr(0, 2000);
  // One of the findings a wrong timed sample decides (docs/runner.md).
  EXPECT_TRUE(got.count("output-cached-on-identity") || got.count("correct-only-untimed") ||
              got.count("work-skipped-on-repeat"))
      << describe(r);
  const json clean = kaudit::run::run_submission(options("linear_relu", "clean.py"));
  EXPECT_EQ(clean["result"], "correct") << describe(clean);
  for (const char* mode : {"fresh", "rewrite"})
    for (const auto& s : clean["timing"][0]["modes"][mode]["samples"]) EXPECT_EQ(s["inputs_from"], "seed") << mode;
  for (const auto& s : clean["timing"][0]["modes"]["bench"]["samples"]) EXPECT_EQ(s["inputs_from"], "file");
}

// A shape whose inputs are large and drawn again bit for bit from a seed has
// the correctness cases of its other seeds drawn from their seed in both
// processes, never written and read back (MoE weights are GiBs per seed); the
// first seed's case and its stress cases stay files. A generator rigged in
// the submission's process draws other inputs there: that case fails, and
// says why, as a seeded timed sample does.
TEST(RunnerCpu, LargeReproducibleCasesAreDrawnFromTheirSeedInEachProcess) {
  SKIP_WITHOUT_TORCH();
  auto o = options("linear_relu", "clean.py");
  o.seeded_case_bytes = 1;  // every shape counts as large
  const json r = kaudit::run::run_submission(o);
  EXPECT_EQ(r["result"], "correct") << describe(r);
  EXPECT_EQ(ids(r), Ids{}) << describe(r);
  int seeded = 0;
  for (const auto& shape : r["correctness"])
    for (const auto& c : shape["cases"]) {
      EXPECT_EQ(c["status"], "passed") << c.dump();
      const bool other_seed = c["kind"] != "stress" && c["case"] != 0;  // seed 2 and the bounds case
      EXPECT_EQ(c["inputs_from"], other_seed ? "seed" : "file") << c.dump();
      seeded += other_seed;
    }
  EXPECT_EQ(seeded, 2 * static_cast<int>(r["correctness"].size()));  // seeds 2 and 3 (bounds) of each shape

  auto rigged = attack("samples_rigged_generator");
  rigged.seeded_case_bytes = 1;
  const json a = kaudit::run::run_submission(rigged);
  EXPECT_EQ(a["result"], "incorrect") << describe(a);
  bool told = false;
  for (const auto& c : a["correctness"][0]["cases"])
    told |= c["inputs_from"] == "seed" && c.value("reason", std::string()).find("fingerprints differ") != std::string::npos;
  EXPECT_TRUE(told) << a["correctness"][0].dump().substr(0, 3000);
}

// A seeded case has no reference files to compare the inputs with after the
// call: the harness hands back the inputs as the call got them beside the
// changed ones, and the runner compares the two.
TEST(RunnerCpu, InputMutationIsFoundInASeededCase) {
  SKIP_WITHOUT_TORCH();
  auto o = options("linear_relu", "mutate_inputs.py");
  o.seeded_case_bytes = 1;
  const json r = kaudit::run::run_submission(o);
  EXPECT_EQ(r["result"], "incorrect") << describe(r);
  EXPECT_EQ(ids(r), Ids{"input-mutated"}) << describe(r);
  const json& seeded_case = r["correctness"][0]["cases"][1];
  EXPECT_EQ(seeded_case["inputs_from"], "seed") << seeded_case.dump();
  EXPECT_EQ(seeded_case["inputs_mutated"], json::array({0})) << seeded_case.dump();
}

// The harness's channel is a pipe the runner made, file descriptor 3 in the
// harness's process. A submission that puts another pipe there at import
// (os.dup2) and relays the harness's lines through a process of its own can
// rewrite any of them; the runner reads which pipe that descriptor is from
// /proc, which the submission cannot forge, and calls the swap tampering.
TEST(RunnerCpu, ChannelReplacedUnderTheHarnessIsTampering) {
  SKIP_WITHOUT_TORCH();
  const json r = kaudit::run::run_submission(attack("channel_dup_relay"));
  EXPECT_NE(r["result"], "correct") << describe(r);
  EXPECT_TRUE(ids(r).count("harness-tampered")) << describe(r);
  const json& checks = r["submission_process"]["channel_checks"];
  EXPECT_EQ(checks["replaced"], true) << r["submission_process"].dump();
  const json clean = kaudit::run::run_submission(options("linear_relu", "clean.py"));
  EXPECT_EQ(clean["result"], "correct") << describe(clean);
  EXPECT_FALSE(ids(clean).count("harness-tampered")) << describe(clean);
  EXPECT_EQ(clean["submission_process"]["channel_checks"]["replaced"], false) << clean["submission_process"].dump();
  // Every message after hello: at least every timed call's report.
  EXPECT_GE(clean["submission_process"]["channel_checks"]["checked"].get<int>(), 3 * 10)
      << clean["submission_process"].dump();
}

// Compiler processes in the first call of every new shape (Triton's ptxas,
// load_inline's ninja) leave the harness's channel where it was: on the H200
// clean Triton runs were called harness-tampered at their last probe shape.
TEST(RunnerCpu, CompilerProcessesAtNewShapesKeepTheChannel) {
  SKIP_WITHOUT_TORCH();
  const json r = kaudit::run::run_submission(options("linear_relu", "compile_per_shape.py"));
  EXPECT_EQ(r["result"], "correct") << describe(r);
  EXPECT_FALSE(ids(r).count("harness-tampered")) << describe(r);
  EXPECT_FALSE(ids(r).count("protocol-violation")) << describe(r);
  const json& checks = r["submission_process"]["channel_checks"];
  EXPECT_EQ(checks["replaced"], false) << checks.dump();
  EXPECT_FALSE(checks.contains("unavailable")) << checks.dump();
  EXPECT_GE(checks["checked"].get<int>(), 3 * 10) << checks.dump();
  EXPECT_FALSE(r["input_probes"]["off_grid"]["shapes"].empty()) << r["input_probes"].dump();
}

TEST(RunnerCpu, CacheOnIdentityIsWrongAfterRewrite) {
  SKIP_WITHOUT_TORCH();
  const json r = kaudit::run::run_submission(options("linear_relu", "cache_identity.py"));
  EXPECT_EQ(r["result"], "incorrect") << describe(r);
  const auto got = ids(r);
  EXPECT_TRUE(got.count("output-cached-on-identity")) << describe(r);
  EXPECT_TRUE(got.count("speedup-vanishes-with-fresh-inputs")) << describe(r);
  EXPECT_TRUE(got.count("output-reused")) << describe(r);  // the cached tensor itself, every bench call
  // Right on new tensors, so not the fresh probe's work-skipped-on-repeat;
  // the ATen op record's, as on a GPU the trace's: the repeated inputs' call
  // ran no matmul.
  EXPECT_TRUE(got.count("work-skipped-on-repeat")) << describe(r);
  for (const auto& f : r["findings"]) {
    if (f["id"] == "work-skipped-on-repeat") {
      EXPECT_NE(f["message"].get<std::string>().find("ATen op time"), std::string::npos) << f;
    }
  }
  EXPECT_TRUE(r["correctness"][0]["passed"].get<bool>());
  EXPECT_TRUE(r["timing"][0]["modes"]["fresh"]["samples_passed"].get<bool>());
  EXPECT_FALSE(r["timing"][0]["modes"]["rewrite"]["samples_passed"].get<bool>());
  EXPECT_EQ(r["timing"][0]["modes"]["rewrite"]["version_counters_moved"], 0);
}

// A generator that seeds torch itself (upstream's KDA: torch.manual_seed(0)
// inside get_inputs) draws the same inputs for every seed: the fresh and
// rewrite calls were the bench call's inputs again, and a cache keyed on the
// inputs' address passed for work. Its floats are now permuted from each
// seed (all but the first correctness seed's draw), in both processes alike.
TEST(RunnerCpu, AGeneratorThatIgnoresItsSeedStillGivesNewInputs) {
  SKIP_WITHOUT_TORCH();
  const fs::path problem = linear_relu_drawing_first("seedless", "torch.manual_seed(0)");
  auto cached = options("linear_relu", "cache_identity.py");
  cached.problem = problem;
  const json r = kaudit::run::run_submission(cached);
  auto honest = options("linear_relu", "clean.py");
  honest.problem = problem;
  const json clean = kaudit::run::run_submission(honest);
  fs::remove_all(problem);
  EXPECT_EQ(r["result"], "incorrect") << describe(r);
  EXPECT_TRUE(ids(r).count("output-cached-on-identity")) << describe(r);
  EXPECT_FALSE(r["timing"][0]["modes"]["rewrite"]["samples_passed"].get<bool>()) << describe(r);
  EXPECT_EQ(clean["result"], "correct") << describe(clean);
  EXPECT_EQ(ids(clean), Ids{}) << describe(clean);
}

// A kernel wrong only at a rare valid value (a sequence of one token, 1 in
// 512 per sequence here) passed every random draw: on the H200 a paged
// attention kernel wrong only there passed 12 graded and 24 sampled draws.
// The last seed case draws its integers at their range's ends, so it is
// incorrect in every run, and the reason names the case; an honest kernel
// stays correct and clean, its bounds case checked like a seed case.
TEST(RunnerCpu, AKernelWrongOnlyAtTheEndOfAnIntegerRangeIsIncorrect) {
  SKIP_WITHOUT_TORCH();
  const json wrong = kaudit::run::run_submission(options("masked_lengths", "masked_lengths_single_token_wrong.py"));
  EXPECT_EQ(wrong["result"], "incorrect") << describe(wrong);
  EXPECT_EQ(ids(wrong), Ids{}) << describe(wrong);
  EXPECT_NE(wrong["result_reason"].get<std::string>().find("bounds case 2"), std::string::npos) << describe(wrong);
  const json& cases = wrong["correctness"][0]["cases"];
  ASSERT_EQ(cases.size(), 5u);
  EXPECT_EQ(cases[2]["kind"], "bounds");
  EXPECT_EQ(cases[2]["status"], "failed") << describe(wrong);
  for (int j : {0, 1, 3, 4}) EXPECT_EQ(cases[j]["status"], "passed") << j << describe(wrong);
  const json clean = kaudit::run::run_submission(options("masked_lengths", "masked_lengths_clean.py"));
  EXPECT_EQ(clean["result"], "correct") << describe(clean);
  EXPECT_EQ(ids(clean), Ids{}) << describe(clean);
  EXPECT_EQ(clean["correctness"][0]["cases"][2]["status"], "passed") << describe(clean);
  // A reference that does not take a range's end either: the case is skipped
  // and says why, and the run is judged on the others. It refuses two
  // sequences of one token, which the bounds case draws and a random draw of
  // eight lengths almost never does (1 in 12000 calls), where one such
  // sequence came in a fresh timing call's draw and made the run an error.
  std::string reference = problem_file("masked_lengths", "reference.py");
  const std::string forward = "    def forward(self, x, seq_lens):\n";
  reference.insert(reference.find(forward) + forward.size(),
                   "        if int((seq_lens == 1).sum()) >= 2:\n"
                   "            raise ValueError('no two sequences of one token')\n");
  auto picky = options("masked_lengths", "masked_lengths_clean.py");
  picky.problem = problem_variant("masked_lengths", "bounds_picky_reference", {{"reference.py", reference}});
  const json skipped = kaudit::run::run_submission(picky);
  fs::remove_all(picky.problem);
  EXPECT_EQ(skipped["result"], "correct") << describe(skipped);
  const json& bounds = skipped["correctness"][0]["cases"][2];
  EXPECT_EQ(bounds["status"], "skipped") << describe(skipped);
  EXPECT_NE(bounds.value("reason", "").find("no two sequences of one token"), std::string::npos) << bounds.dump();
}

// A range's end where the problem itself breaks down (a count of 0, whose
// mean is x/0): the reference's output is not finite there, no kernel passes
// the grader's check on it, and a random draw from 2^20 counts almost never
// holds one. A kernel that guards the division differs from the reference
// only there: those elements are not checked, and it is correct; one wrong
// at the other end of the range is still incorrect.
TEST(RunnerCpu, ABoundsCaseChecksOnlyWhereTheReferenceIsFinite) {
  SKIP_WITHOUT_TORCH();
  std::string reference = problem_file("masked_lengths", "reference.py");
  const auto replace = [&](const std::string& from, const std::string& to) {
    ASSERT_NE(reference.find(from), std::string::npos) << from;
    reference.replace(reference.find(from), from.size(), to);
  };
  replace("        pos = torch.arange(x.shape[1], device=x.device)\n"
          "        valid = (pos[None, :] < seq_lens[:, None].long()).float()\n"
          "        return (x * valid[:, :, None]).sum(1) / seq_lens[:, None].float()\n",
          "        return x.sum(1) / seq_lens[:, None].float()\n");
  replace("torch.randint(1, max_seq_len + 1,", "torch.randint(0, 1 << 20,");
  replace("    seq_lens[0] = max_seq_len\n", "");
  auto guarded = options("masked_lengths", "masked_lengths_clean.py");
  guarded.problem = problem_variant("masked_lengths", "bounds_degenerate", {{"reference.py", reference}});
  const fs::path solutions = guarded.problem / "solutions";
  fs::create_directories(solutions);
  const std::string model = "import torch\n\n\nclass Model(torch.nn.Module):\n    def forward(self, x, seq_lens):\n";
  std::ofstream(solutions / "guarded.py") << model << "        return x.sum(1) / seq_lens.clamp_min(1)[:, None].float()\n";
  std::ofstream(solutions / "wrong_at_top.py")
      << model << "        top = (seq_lens == (1 << 20) - 1)[:, None]\n"
      << "        return torch.where(top, 1.0, x.sum(1) / seq_lens.clamp_min(1)[:, None].float())\n";
  guarded.solution = solutions / "guarded.py";
  const json excused = kaudit::run::run_submission(guarded);
  auto top = guarded;
  top.solution = solutions / "wrong_at_top.py";
  const json wrong = kaudit::run::run_submission(top);
  fs::remove_all(guarded.problem);
  EXPECT_EQ(excused["result"], "correct") << describe(excused);
  EXPECT_EQ(ids(excused), Ids{}) << describe(excused);
  const json& bounds = excused["correctness"][0]["cases"][2];
  EXPECT_EQ(bounds["kind"], "bounds");
  EXPECT_EQ(bounds["status"], "passed") << bounds.dump();
  EXPECT_EQ(bounds.value("reference_non_finite_excused", false), true) << bounds.dump();
  EXPECT_EQ(excused["correctness"][0]["cases"][0].count("reference_non_finite_excused"), 0u);
  EXPECT_EQ(wrong["result"], "incorrect") << describe(wrong);
  EXPECT_NE(wrong.value("result_reason", "").find("bounds case 2"), std::string::npos) << describe(wrong);
}

TEST(RunnerCpu, WorkSkippedAfterWarmup) {
  SKIP_WITHOUT_TORCH();
  // Its switch counts the graded calls: without the distribution probes'
  // calls among them (with them it is wrong in a correctness case already).
  auto o = options("linear_relu", "skip_after_warmup.py");
  o.distributions.clear();
  const json r = kaudit::run::run_submission(o);
  EXPECT_EQ(r["result"], "incorrect") << describe(r);
  EXPECT_EQ(ids(r), Ids{"work-skipped-on-repeat"}) << describe(r);
}

TEST(RunnerCpu, RightOnlyWhenNotTimed) {
  SKIP_WITHOUT_TORCH();
  auto o = options("linear_relu", "untimed_only.py");
  o.distributions.clear();  // its switch counts the graded calls
  const json r = kaudit::run::run_submission(o);
  EXPECT_EQ(r["result"], "incorrect") << describe(r);
  EXPECT_EQ(ids(r), Ids{"correct-only-untimed"}) << describe(r);
}

TEST(RunnerCpu, ForgedTimesAreCaughtByTheRunnersClock) {
  SKIP_WITHOUT_TORCH();
  const json r = kaudit::run::run_submission(options("linear_relu", "forge_timer.py"));
  EXPECT_TRUE(ids(r).count("timing-forged")) << describe(r);
  EXPECT_TRUE(ids(r).count("harness-tampered")) << describe(r);
  const json& clock = r["timing"][0]["modes"]["fresh"]["runner_clock"];
  EXPECT_GT(clock["median_unexplained_ms"].get<double>(), 15.0) << clock;
}

// Processes outside the run that keep every core busy while they live (one
// a core), as other tests of a parallel ctest do.
class CpuHogs {
 public:
  CpuHogs() {
    for (int k = 0; k < kaudit::run::usable_cores(); ++k) {
      const pid_t p = fork();
      if (p == 0)
        for (;;) {
        }
      if (p > 0) hogs_.push_back(p);
    }
  }
  ~CpuHogs() {
    for (const pid_t p : hogs_) {
      kill(p, SIGKILL);
      waitpid(p, nullptr, 0);
    }
  }

 private:
  std::vector<pid_t> hogs_;
};

// On a machine whose every core other work holds, the runner's clock still
// judges the reported times, with the harness's wait for a CPU excused: the
// forger is still caught, and an honest submission is neither accused nor
// left unchecked.
TEST(RunnerCpu, TimesOnABusyMachineAreStillChecked) {
  SKIP_WITHOUT_TORCH();
  if (!kaudit::run::runqueue_wait_ms(::getpid())) GTEST_SKIP() << "no /proc/PID/schedstat on this kernel";
  const CpuHogs hogs;
  const json forged = kaudit::run::run_submission(options("linear_relu", "forge_timer.py"));
  EXPECT_TRUE(ids(forged).count("timing-forged")) << describe(forged);
  const json& forged_clock = forged["timing"][0]["modes"]["fresh"]["runner_clock"];
  EXPECT_GT(forged_clock["contended_calls"].get<int>(), 0) << forged_clock;
  EXPECT_FALSE(forged_clock.contains("unverified")) << forged_clock;
  const json honest = kaudit::run::run_submission(options("linear_relu", "clean.py"));
  EXPECT_EQ(honest["result"], "correct") << describe(honest);
  EXPECT_FALSE(ids(honest).count("timing-forged")) << describe(honest);
  for (const auto& [mode, m] : honest["timing"][0]["modes"].items())
    EXPECT_FALSE(m["runner_clock"].contains("unverified")) << mode << ": " << m["runner_clock"];
}

// The cache flush before each timed call is no part of it: on a host with a
// large last-level cache it took 35 ms a call (256 MiB written), inside the
// runner's clock, and an honest 0.6 ms kernel was called timing-forged.
TEST(RunnerCpu, TheCacheFlushBeforeATimedCallIsNotCountedAgainstIt) {
  SKIP_WITHOUT_TORCH();
  RunOptions o = options("linear_relu", "clean.py");
  o.cache_flush_bytes = 512.0 * (1 << 20);
  o.modes = {"bench"};
  const json r = kaudit::run::run_submission(o);
  EXPECT_EQ(r["result"], "correct") << describe(r);
  EXPECT_FALSE(ids(r).count("timing-forged")) << describe(r);
  const json& clock = r["timing"][0]["modes"]["bench"]["runner_clock"];
  EXPECT_LT(clock["median_unexplained_ms"].get<double>(), 10.0) << clock;
}

TEST(RunnerCpu, MessagesForgedOnTheChannelStopTheRun) {
  SKIP_WITHOUT_TORCH();
  // In a call, and at import (read on the set-up's thread in the sandbox,
  // handled on the run's), in and out of the sandbox.
  for (const std::string solution : {"forge_channel.py", "forge_at_import.py"}) {
    const json r = kaudit::run::run_submission(options("linear_relu", solution));
    EXPECT_EQ(r["result"], "error") << solution << describe(r);
    EXPECT_TRUE(ids(r).count("protocol-violation")) << solution << describe(r);
  }
  auto o = options("linear_relu", "forge_at_import.py");
  o.unsafe_no_sandbox = true;
  const json u = kaudit::run::run_submission(o);
  EXPECT_EQ(u["result"], "error") << describe(u);
  EXPECT_TRUE(ids(u).count("protocol-violation")) << describe(u);
}

// Each phase is announced once: a submission repeating one to renew its
// deadline is stopped at once, with the violation named.
TEST(RunnerCpu, RepeatedPhaseCannotRenewTheDeadline) {
  SKIP_WITHOUT_TORCH();
  const json r = kaudit::run::run_submission(options("linear_relu", "renew_deadline.py"));
  EXPECT_EQ(r["result"], "error") << describe(r);
  EXPECT_TRUE(ids(r).count("protocol-violation")) << describe(r);
  EXPECT_NE(r["error"]["reason"].get<std::string>().find("a 'phase' message repeated"), std::string::npos)
      << describe(r);
}

TEST(RunnerCpu, InputMutationIsFound) {
  SKIP_WITHOUT_TORCH();
  const json r = kaudit::run::run_submission(options("linear_relu", "mutate_inputs.py"));
  // Right on the inputs it was given, wrong in the bench calls after the first:
  // the benchmark's reused input was halved.
  EXPECT_EQ(r["result"], "incorrect") << describe(r);
  EXPECT_EQ(ids(r), Ids{"input-mutated"}) << describe(r);
  EXPECT_EQ(r["correctness"][0]["cases"][0]["inputs_mutated"], json::array({0}));
}

TEST(RunnerCpu, OutputAliasingAnInputIsFound) {
  SKIP_WITHOUT_TORCH();
  const json r = kaudit::run::run_submission(options("linear_relu", "alias_output.py"));
  EXPECT_EQ(r["result"], "incorrect") << describe(r);  // later bench calls see their own output as x
  EXPECT_EQ(ids(r), (Ids{"output-aliases-input", "input-mutated"})) << describe(r);
}

TEST(RunnerCpu, DoingWhatAnInPlaceReferenceDoesIsNoOffence) {
  SKIP_WITHOUT_TORCH();
  const json r = kaudit::run::run_submission(options("scale_inplace", "scale_inplace_like_reference.py"));
  EXPECT_EQ(r["result"], "correct") << describe(r);  // bench calls checked on the inputs as they saw them
  EXPECT_EQ(ids(r), Ids{}) << describe(r);
  const json& habits = r["correctness"][0]["reference_habits"];
  EXPECT_EQ(habits["changes_inputs"], json::array({0})) << habits;
  EXPECT_EQ(habits["aliases_input"], true) << habits;
  EXPECT_EQ(r["correctness"][0]["cases"][0]["inputs_mutated"], json::array({0})) << "the fact stays recorded";
}

// The reference's outputs on inputs it ran on while making them (its habits
// on a graded shape's first case, its acceptance of an off-grid shape) answer
// those cases' expected-output jobs: 2 to 10 of its calls a run less, and the
// checks are the ones its own calls would make. An in-place reference's
// habits call changed its inputs, so its outputs there answer nothing.
static int known_jobs(const json& r) {
  int known = 0;
  for (const auto& p : r["phases"])
    if (p["phase"] == "expected outputs") known += p.value("known", 0);
  return known;
}

TEST(RunnerCpu, OutputsTheReferenceComputedWhileMakingInputsAnswerTheirJobs) {
  SKIP_WITHOUT_TORCH();
  const json r = kaudit::run::run_submission(options("linear_relu", "clean.py"));
  EXPECT_EQ(r["result"], "correct") << describe(r);
  EXPECT_EQ(ids(r), Ids{}) << describe(r);
  const auto& off_grid = r["input_probes"]["off_grid"]["shapes"];
  ASSERT_FALSE(off_grid.empty()) << r["input_probes"].dump();
  for (const auto& shape : off_grid) EXPECT_EQ(shape["status"], "passed") << shape;
  EXPECT_EQ(known_jobs(r), static_cast<int>(r["shapes"].size() + off_grid.size())) << r["phases"].dump();
  // A wrong answer there would be seen: a submission right only at the
  // graded shapes fails each off-grid shape the reference answered so.
  const json narrow = kaudit::run::run_submission(options("linear_relu", "tile_table.py"));
  EXPECT_GT(known_jobs(narrow), 0) << narrow["phases"].dump();
  EXPECT_EQ(ids(narrow), Ids{"shape-hardcoded"}) << describe(narrow);
  const json in_place = kaudit::run::run_submission(options("scale_inplace", "scale_inplace_like_reference.py"));
  EXPECT_EQ(in_place["result"], "correct") << describe(in_place);
  EXPECT_EQ(known_jobs(in_place), static_cast<int>(in_place["input_probes"]["off_grid"]["shapes"].size()))
      << "no graded case answered from the habits call that changed its inputs: " << in_place["phases"].dump();
}

// The jobs each reference process answered, by the process its phases name.
static std::map<std::string, int> jobs_by_process(const json& r) {
  std::map<std::string, int> jobs;
  for (const auto& p : r["phases"])
    if (p["phase"] == "expected outputs") jobs[p["process"].get<std::string>()] += p.value("jobs", 0);
  return jobs;
}

// The reference's helper (RunOptions::reference_helper): a second reference
// process that answers timed samples beside the first. Whoever answers them,
// every sampled call is checked against the same expected outputs: a clean
// kernel stays clean, one right only while not timed is still caught, and no
// job is lost.
TEST(RunnerCpu, AReferenceHelperChangesNoVerdict) {
  SKIP_WITHOUT_TORCH();
  for (const auto& [solution, result, found] :
       {std::tuple{"clean.py", "correct", Ids{}}, std::tuple{"untimed_only.py", "incorrect", Ids{"correct-only-untimed"}}}) {
    auto o = options("linear_relu", solution);
    o.distributions.clear();  // untimed_only's switch counts the graded calls
    const json alone = kaudit::run::run_submission(o);
    o.reference_helper = true;
    const json r = kaudit::run::run_submission(o);
    if (!r["isolation"].value("sandboxed", false)) GTEST_SKIP() << "no sandbox: the expected outputs come after the calls";
    EXPECT_EQ(alone["result"], result) << solution << describe(alone);
    EXPECT_EQ(r["result"], result) << solution << describe(r);
    EXPECT_EQ(ids(r), found) << solution << describe(r);
    bool imported = false;
    for (const auto& p : r["phases"]) imported = imported || (p["process"] == "reference helper" && p["phase"] == "import");
    EXPECT_TRUE(imported) << r["phases"].dump();
    auto jobs = jobs_by_process(r);
    EXPECT_GE(jobs["reference"] + jobs["reference helper"], jobs_by_process(alone)["reference"]) << r["phases"].dump();
  }
  // Started once the first process has made the inputs (kaudit run
  // --reference-helper after-inputs): the same verdict, its import after them.
  auto o = options("linear_relu", "clean.py");
  o.reference_helper = true;
  o.reference_helper_start = RunOptions::HelperStart::after_inputs;
  const json late = kaudit::run::run_submission(o);
  EXPECT_EQ(late["result"], "correct") << describe(late);
  EXPECT_EQ(ids(late), Ids{}) << describe(late);
  double inputs_end = -1, helper_import = -1;
  for (const auto& p : late["phases"]) {
    if (p["process"] == "reference" && p["phase"] == "inputs") inputs_end = p["began_s"].get<double>() + p["seconds"].get<double>();
    if (p["process"] == "reference helper" && p["phase"] == "import") helper_import = p["began_s"].get<double>();
  }
  ASSERT_GE(inputs_end, 0) << late["phases"].dump();
  EXPECT_GE(helper_import, inputs_end - 0.01) << late["phases"].dump();
}

// A reference slow in its first process (0.3 s a call): the helper answers
// the timed samples that come while the first computes the correctness
// cases. Where the helper cannot load the problem, the first answers them
// all, and the run is what it would be alone.
TEST(RunnerCpu, AReferenceHelperAnswersSamplesWhileTheFirstIsBusy) {
  SKIP_WITHOUT_TORCH();
  // linear_relu's reference, 0.3 s a call in the first process (its
  // configuration is reference.json), as one looping over thousands of small
  // kernels is on a GPU; with KAUDIT_TEST_HELPER_REFUSES set, the module
  // refuses to load in the helper (reference-helper.json), and with
  // KAUDIT_TEST_HELPER_DIES the helper's process kills itself in its first job.
  std::string reference = std::regex_replace(
      problem_file("linear_relu", "reference.py"), std::regex("    def forward\\(self, x, w\\):\n"),
      "    def forward(self, x, w):\n"
      "        if any(a.endswith('/reference.json') for a in __import__('sys').argv):\n"
      "            __import__('time').sleep(0.3)\n"
      "        elif __import__('os').environ.get('KAUDIT_TEST_HELPER_DIES'):\n"
      "            __import__('os').kill(__import__('os').getpid(), 9)\n");
  reference += "\nimport os, sys\n"
               "if os.environ.get('KAUDIT_TEST_HELPER_REFUSES') and "
               "any(a.endswith('/reference-helper.json') for a in sys.argv):\n"
               "    raise RuntimeError('this problem does not load in the reference helper')\n";
  ASSERT_NE(reference.find("sleep(0.3)"), std::string::npos) << reference;
  auto o = options("linear_relu", "clean.py");
  o.problem = problem_variant("linear_relu", "slow_first_reference", {{"reference.py", reference}});
  o.reference_helper = true;
  const json r = kaudit::run::run_submission(o);
  if (!r["isolation"].value("sandboxed", false)) GTEST_SKIP() << "no sandbox: the expected outputs come after the calls";
  EXPECT_EQ(r["result"], "correct") << describe(r);
  EXPECT_EQ(ids(r), Ids{}) << describe(r);
  EXPECT_GT(jobs_by_process(r)["reference helper"], 0) << r["phases"].dump();
  // With the environment variable `set`: correct, clean and with no error still.
  auto clean_run_with = [&o](const char* set) {
    ::setenv(set, "1", 1);
    o.pass_env = {set};
    const json run = kaudit::run::run_submission(o);
    ::unsetenv(set);
    EXPECT_EQ(run["result"], "correct") << set << describe(run);
    EXPECT_EQ(ids(run), Ids{}) << set << describe(run);
    EXPECT_FALSE(run["error"].is_object()) << set << describe(run);
    return run;
  };
  const json refused = clean_run_with("KAUDIT_TEST_HELPER_REFUSES");
  const auto jobs = jobs_by_process(refused);
  EXPECT_FALSE(jobs.count("reference helper")) << "a helper that never loaded answers nothing: " << refused["phases"].dump();
  EXPECT_EQ(jobs.at("reference"), jobs_by_process(r)["reference"] + jobs_by_process(r)["reference helper"])
      << refused["phases"].dump();
  // A helper whose process dies in a batch: the first answers that batch's
  // jobs again, and the run is correct, with no error.
  const json died = clean_run_with("KAUDIT_TEST_HELPER_DIES");
  auto died_jobs = jobs_by_process(died);
  EXPECT_GT(died_jobs["reference helper"], 0) << "the batch it died in: " << died["phases"].dump();
  EXPECT_EQ(died_jobs["reference"], jobs.at("reference")) << "the first answered every job: " << died["phases"].dump();
}

TEST(RunnerCpu, ChangedProblemFileIsFound) {
  SKIP_WITHOUT_TORCH();
  const json r = kaudit::run::run_submission(options("linear_relu", "change_problem_file.py"));
  EXPECT_EQ(ids(r), Ids{"problem-file-changed"}) << describe(r);
  bool changed = false;
  for (const auto& f : r["problem_files"])
    if (f["path"] == "shapes.py") changed = f["status"] == "changed";
  EXPECT_TRUE(changed) << r["problem_files"].dump();
  // The original problem folder is untouched.
  EXPECT_EQ(problem_file("linear_relu", "shapes.py").find("SHAPES[:1]"), std::string::npos);
}

TEST(RunnerCpu, CrashIsAnErrorWithTheSignal) {
  SKIP_WITHOUT_TORCH();
  auto o = options("linear_relu", "crash.py");
  o.keep_temp = true;  // and --keep-temp keeps the working folder
  const json r = kaudit::run::run_submission(o);
  EXPECT_EQ(r["result"], "error");
  EXPECT_EQ(r["error"]["phase"], "correctness") << describe(r);
  EXPECT_NE(r["error"]["reason"].get<std::string>().find("SIGSEGV"), std::string::npos) << describe(r);
  EXPECT_EQ(ids(r), Ids{}) << describe(r);
  ASSERT_TRUE(r.contains("temp_dir"));
  const fs::path dir = r["temp_dir"].get<std::string>();
  EXPECT_TRUE(fs::exists(dir / "work" / "solution.py"));
  EXPECT_TRUE(fs::exists(dir / "work" / "reference.py"));
  fs::remove_all(dir);
}

TEST(RunnerCpu, HangIsKilledWithEverythingItStarted) {
  SKIP_WITHOUT_TORCH();
  ASSERT_TRUE(processes_with_marker("kaudit-hang-test-helper").empty()) << "a helper of an earlier run is still alive";
  auto o = options("linear_relu", "hang.py");
  // A first call that never returns costs the set-up budget (a first call
  // may build), not the phase's.
  o.phase_timeout_s = 120;
  o.setup_timeout_s = 25;
  o.call_timeout_s = 4;
  const auto start = std::chrono::steady_clock::now();
  const json r = kaudit::run::run_submission(o);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(60));
  EXPECT_EQ(r["result"], "error");
  EXPECT_NE(r["error"]["reason"].get<std::string>().find("timed out after 25 s in correctness, shape 0 (its first call"),
            std::string::npos)
      << describe(r);
  ASSERT_NE(r["submission_process"]["stdout_tail"].get<std::string>().find("helper started"), std::string::npos)
      << describe(r);
  // The helper (its own session, reparented twice) went with the run.
  EXPECT_TRUE(processes_with_marker("kaudit-hang-test-helper").empty());
}

// A build inside the first call of each shape (load_inline in forward, a
// JIT compile) takes longer than a call's limit: it gets the set-up budget,
// and run.json says how long each shape's first call took.
TEST(RunnerCpu, LazyBuildInTheFirstCallGetsTheSetupBudget) {
  SKIP_WITHOUT_TORCH();
  auto o = options("linear_relu", "lazy_build.py");
  o.call_timeout_s = 3;
  o.off_grid_shapes = 0;  // each off-grid shape would build again in its first call (phase probe)
  const json r = kaudit::run::run_submission(o);
  EXPECT_EQ(r["result"], "correct") << describe(r);
  EXPECT_EQ(ids(r), Ids{}) << describe(r);
  ASSERT_TRUE(r.contains("first_calls")) << r.dump(1).substr(0, 3000);
  std::set<int> shapes;
  for (const auto& c : r["first_calls"]) {
    EXPECT_GE(c["seconds"].get<double>(), 5.0) << c.dump();
    EXPECT_EQ(c["phase"], "correctness");
    shapes.insert(c["shape"].get<int>());
  }
  EXPECT_EQ(shapes, (std::set<int>{0, 1}));
}

// After its first call, a call that hangs costs the call's limit only.
TEST(RunnerCpu, HangAfterTheFirstCallCostsTheCallLimit) {
  SKIP_WITHOUT_TORCH();
  auto o = options("linear_relu", "hang_second_call.py");
  o.call_timeout_s = 3;
  // Which limit stopped it is in the message; no wall-clock bound (a loaded machine would flake it).
  const json r = kaudit::run::run_submission(o);
  EXPECT_EQ(r["result"], "error");
  EXPECT_NE(r["error"]["reason"].get<std::string>().find("timed out after 3 s in correctness, shape 0;"),
            std::string::npos)
      << describe(r);
}

// A first call whose forward returned but whose work never ends (a GPU
// kernel that never finishes, waited for after the return) is no build: it
// costs a call's limit from the return, not the set-up budget, so a hung
// kernel holds a shared device (kaudit audit --jobs) no longer than that.
TEST(RunnerCpu, WorkThatOutlivesTheFirstReturnCostsTheCallLimit) {
  SKIP_WITHOUT_TORCH();
  auto o = options("linear_relu", "hang_after_first_return.py");
  o.setup_timeout_s = 40;
  o.call_timeout_s = 3;
  const json r = kaudit::run::run_submission(o);
  EXPECT_EQ(r["result"], "error");
  EXPECT_NE(r["error"]["reason"].get<std::string>().find("timed out after 3 s in correctness, shape 0 (its first call"),
            std::string::npos)
      << describe(r);
  EXPECT_NE(r["error"]["reason"].get<std::string>().find("after forward returned"), std::string::npos) << describe(r);
}

TEST(RunnerCpu, EarlyExitWithFakePassIsAnError) {
  SKIP_WITHOUT_TORCH();
  const json r = kaudit::run::run_submission(options("linear_relu", "fake_pass.py"));
  EXPECT_EQ(r["result"], "error");
  EXPECT_NE(r["error"]["reason"].get<std::string>().find("exit status 0"), std::string::npos) << describe(r);
  EXPECT_EQ(ids(r), Ids{"exited-before-results"}) << describe(r);
  EXPECT_NE(r["submission_process"]["stdout_tail"].get<std::string>().find("PASS"), std::string::npos);
}

TEST(RunnerCpu, SysExitAtImportIsAnError) {
  SKIP_WITHOUT_TORCH();
  const json r = kaudit::run::run_submission(options("linear_relu", "exit_at_import.py"));
  EXPECT_EQ(r["result"], "error");
  EXPECT_EQ(r["error"]["phase"], "import") << describe(r);
  EXPECT_EQ(ids(r), Ids{"exited-before-results"}) << describe(r);
}

TEST(RunnerCpu, ImportErrorIsAnErrorAndLeavesNoTemporaryFiles) {
  SKIP_WITHOUT_TORCH();
  // A private TMPDIR: no kaudit-run-* folder may be left in it.
  const fs::path tmp = fs::temp_directory_path() / ("kaudit-test-" + std::to_string(::getpid()));
  fs::create_directories(tmp);
  setenv("TMPDIR", tmp.c_str(), 1);
  const json r = kaudit::run::run_submission(options("linear_relu", "import_error.py"));
  unsetenv("TMPDIR");
  EXPECT_EQ(r["result"], "error");
  EXPECT_EQ(r["error"]["phase"], "import");
  EXPECT_NE(r["error"]["reason"].get<std::string>().find("a_module_that_does_not_exist"), std::string::npos)
      << describe(r);
  EXPECT_TRUE(fs::is_empty(tmp));
  fs::remove_all(tmp);
}

TEST(RunnerCpu, SubclassOutputAndMegabytesOfOutput) {
  SKIP_WITHOUT_TORCH();
  auto o = options("linear_relu", "noisy_subclass.py");
  o.modes = {"bench"};
  const json r = kaudit::run::run_submission(o);
  EXPECT_EQ(r["result"], "correct") << describe(r);  // the bytes are right
  EXPECT_EQ(ids(r), Ids{"disguised-output"}) << describe(r);
  // Megabytes printed: the runner keeps a capped head and tail.
  EXPECT_LT(r["submission_process"]["stdout_tail"].get<std::string>().size(), 5000u);
}

// KernelBench-Hard's per-dtype tolerance ({float32: 1.0e-4}) is the
// tolerance, not a cue to fall back to 1e-2.
TEST(RunnerCpu, UpstreamPerDtypeToleranceIsApplied) {
  SKIP_WITHOUT_TORCH();
  // linear_relu's problem.yaml with the tolerance as upstream's 05_topk_bitonic writes it.
  const std::string yaml = std::regex_replace(problem_file("linear_relu", "problem.yaml"), std::regex("tolerance:\n  atol: [0-9.]+\n  rtol: [0-9.]+\n"),
                            "tolerance:\n  float32: 1.0e-4\n");
  ASSERT_NE(yaml.find("float32: 1.0e-4"), std::string::npos) << yaml;
  const fs::path problem = problem_variant("linear_relu", "upstream_tol", {{"problem.yaml", yaml}});
  RunOptions o = options("linear_relu", "off_by_2e3.py");
  o.problem = problem;
  const json bad = kaudit::run::run_submission(o);
  EXPECT_EQ(bad["result"], "incorrect") << describe(bad);
  EXPECT_EQ(bad["settings"]["tolerance"]["by_dtype"]["float32"]["atol"], 1e-4);
  o.solution = kTests / "solutions" / "clean.py";
  const json good = kaudit::run::run_submission(o);
  EXPECT_EQ(good["result"], "correct") << describe(good);
  fs::remove_all(problem);
}

// A problem that yields no case to check proves nothing: an error, never correct.
TEST(RunnerCpu, NoShapeToCheckIsAnError) {
  SKIP_WITHOUT_TORCH();
  const fs::path problem =
      problem_variant("linear_relu", "no_shapes", {{"shapes.py", "# A problem that grades nothing.\nSHAPES = []\n"}});
  RunOptions empty = options("linear_relu", "clean.py");
  empty.problem = problem;
  const json r = kaudit::run::run_submission(empty);
  fs::remove_all(problem);
  EXPECT_EQ(r["result"], "error") << describe(r);
  EXPECT_NE(r["error"]["reason"].get<std::string>().find("no case to check"), std::string::npos) << describe(r);
  RunOptions o = options("linear_relu", "clean.py");
  o.seeds = 0;
  o.stress_scales.clear();
  const json none = kaudit::run::run_submission(o);
  EXPECT_EQ(none["result"], "error") << describe(none);
}

// KernelBench's own layout: a level folder of one .py per problem, the file
// given as --problem. Only that file is the problem's (copied and watched).
TEST(RunnerCpu, KernelBenchProblemFileInALevelFolder) {
  SKIP_WITHOUT_TORCH();
  // kb_softplus's file beside a second problem, as in a KernelBench level folder.
  const fs::path level = problem_variant("kb_softplus", "kb_level", {{"11_other.py", "import torch\n"}});
  fs::rename(level / "softplus.py", level / "10_softplus.py");
  RunOptions o = options("kb_softplus", "kb_softplus_clean.py");
  o.problem = level / "10_softplus.py";
  const json r = kaudit::run::run_submission(o);
  fs::remove_all(level);
  EXPECT_EQ(r["result"], "correct") << describe(r);
  EXPECT_EQ(r["problem"]["format"], "kernelbench");
  EXPECT_EQ(r["problem"]["name"], "10_softplus");
  ASSERT_EQ(r["problem_files"].size(), 1u) << r["problem_files"].dump();
  EXPECT_EQ(r["problem_files"][0]["path"], "10_softplus.py");
}
