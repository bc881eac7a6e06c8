// Issue 15, items 5b and 6, end to end on the CPU (kaudit run --device cpu):
// the ATen ops the submission's calls ran (run.json's aten_ops, and the
// banned-aten-op finding that confirms a static banned call without a GPU
// trace), what the record says when the submission hides ops from it, and
// the reference's state_dict loaded strictly into the solution's model where
// KernelBench-Hard's check.py does. Needs Debian's python3-torch
// (/usr/bin/python3); skips visibly without. The upstream case reads
// KernelBench-Hard's own topk folder from ../shared/upstream and skips
// visibly when it is not there.
#include "runner/session/run.h"
#include "tests/runner/cpu_run_support.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <unistd.h>

namespace fs = std::filesystem;
using kaudit::run::RunOptions;
using nlohmann::json;

namespace {

using kaudit::test::ids;
std::string describe(const json& r) { return kaudit::test::describe(r, {"aten_ops", "state_dict"}); }

const fs::path kTests = KAUDIT_RUNNER_TESTS;

RunOptions options(const std::string& problem, const std::string& solution) {
  RunOptions o = kaudit::test::cpu_options(problem, solution);
  o.warmup = 1;
  o.seeds = 2;
  return o;
}

// Every op name the record holds, over all its groups.
std::set<std::string> ops_seen(const json& r) {
  std::set<std::string> names;
  for (const auto& g : r["aten_ops"]["groups"])
    for (const auto& [name, count] : g["ops"].items()) names.insert(name);
  return names;
}

bool any_starts_with(const std::set<std::string>& names, const std::string& prefix) {
  for (const auto& n : names)
    if (n.rfind(prefix, 0) == 0) return true;
  return false;
}

using Ids = std::set<std::string>;

}  // namespace

// A banned op reached through a Tensor method ran: the record shows it, and
// banned-aten-op says so without any GPU trace.
TEST(RunnerCpuAtenOps, BannedTensorMethodThatRanIsRecorded) {
  SKIP_WITHOUT_TORCH();
  const json r = kaudit::run::run_submission(options("banned_topk", "topk_method.py"));
  EXPECT_EQ(r["result"], "correct") << describe(r);
  EXPECT_EQ(ids(r), Ids{"banned-aten-op"}) << describe(r);
  ASSERT_TRUE(r.contains("aten_ops")) << describe(r);
  const json& rec = r["aten_ops"];
  EXPECT_TRUE(rec["complete"].get<bool>()) << describe(r);
  // Every shape: an untimed call on its first case's inputs, and one per mode.
  std::multiset<std::string> groups;
  for (const auto& g : rec["groups"]) {
    groups.insert(std::to_string(g["shape"].get<int>()) + " " + g["phase"].get<std::string>());
    EXPECT_EQ(g["calls"].get<int>(), 1) << g;
    EXPECT_TRUE(g["gaps"].empty()) << g;
  }
  for (const char* shape : {"0", "1"})
    for (const char* phase : {"first-case", "bench", "fresh", "rewrite"})
      EXPECT_EQ(groups.count(std::string(shape) + " " + phase), 1u) << shape << " " << phase << describe(r);
  EXPECT_TRUE(any_starts_with(ops_seen(r), "aten.topk.")) << describe(r);
  ASSERT_FALSE(rec["banned"].empty()) << describe(r);
  EXPECT_EQ(rec["banned"][0]["banned_as"], "torch.topk") << rec["banned"];
  for (const auto& f : r["findings"])
    if (f["id"] == "banned-aten-op") {
      EXPECT_EQ(f["source"], "probe");
      EXPECT_EQ(f["category"], "cheat");
      EXPECT_NE(f["message"].get<std::string>().find("aten.topk"), std::string::npos) << f;
    }
}

// A memo keyed on the inputs' values (a checksum) answers the benchmark's
// repeated inputs without the matmul; every output is right and on the CPU
// no trace shows the skipped work. The op record does: the untimed call on
// fresh inputs ran aten.mm, the one on the repeated inputs did not.
TEST(RunnerCpuAtenOps, AValueKeyedMemoSkipsTheWorkOnRepeatedInputs) {
  SKIP_WITHOUT_TORCH();
  const json r = kaudit::run::run_submission(options("linear_relu", "value_checksum_memo.py"));
  EXPECT_EQ(r["result"], "correct") << describe(r);
  EXPECT_TRUE(ids(r).count("work-skipped-on-repeat")) << describe(r);
  for (const auto& f : r["findings"])
    if (f["id"] == "work-skipped-on-repeat") {
      EXPECT_EQ(f["category"], "cheat");
      EXPECT_NE(f["message"].get<std::string>().find("aten.mm"), std::string::npos) << f;
    }
  for (const auto& g : r["aten_ops"]["groups"]) {
    ASSERT_TRUE(g.contains("work")) << g;
    for (const auto& [name, w] : g["work"].items()) EXPECT_EQ(w.size(), 2u) << name;
  }
}

// Its own selection behind a method that is merely called topk: ATen never
// ran topk or sort, and the complete record says so.
TEST(RunnerCpuAtenOps, OwnImplementationIsNotConfirmed) {
  SKIP_WITHOUT_TORCH();
  const json r = kaudit::run::run_submission(options("banned_topk", "topk_own.py"));
  EXPECT_EQ(r["result"], "correct") << describe(r);
  EXPECT_EQ(ids(r), Ids{}) << describe(r);
  EXPECT_TRUE(r["aten_ops"]["complete"].get<bool>()) << describe(r);
  const auto seen = ops_seen(r);
  EXPECT_FALSE(any_starts_with(seen, "aten.topk.")) << describe(r);
  EXPECT_FALSE(any_starts_with(seen, "aten.sort.")) << describe(r);
  EXPECT_TRUE(any_starts_with(seen, "aten.max.")) << "what it did run is recorded" << describe(r);
  EXPECT_TRUE(r["aten_ops"]["banned"].empty());
}

// Dispatch modes switched off around the banned op: the record cannot vouch
// for those calls, and says why; it never reads as "topk did not run".
TEST(RunnerCpuAtenOps, DisabledDispatchLeavesTheRecordIncomplete) {
  SKIP_WITHOUT_TORCH();
  for (const char* solution : {"topk_no_dispatch.py", "topk_own_mode.py"}) {
    const json r = kaudit::run::run_submission(options("banned_topk", solution));
    EXPECT_EQ(r["result"], "correct") << solution << describe(r);
    ASSERT_TRUE(r.contains("aten_ops")) << solution << describe(r);
    const json& rec = r["aten_ops"];
    EXPECT_FALSE(rec["complete"].get<bool>()) << solution << describe(r);
    ASSERT_TRUE(rec["incomplete"].is_string()) << solution << describe(r);
    EXPECT_NE(rec["incomplete"].get<std::string>().find("_DisableTorchDispatch"), std::string::npos)
        << solution << describe(r);
  }
}

// The wrapped off-switch put back before the call: nothing leaves a gap,
// but the recorder's bindings were replaced.
TEST(RunnerCpuAtenOps, UnwrappingTheOffSwitchIsHarnessTampering) {
  SKIP_WITHOUT_TORCH();
  const json r = kaudit::run::run_submission(options("banned_topk", "topk_unwrap_switch.py"));
  EXPECT_EQ(r["result"], "correct") << describe(r);
  EXPECT_TRUE(ids(r).count("harness-tampered")) << describe(r);
  bool named = false;
  for (const auto& f : r["findings"])
    if (f["id"] == "harness-tampered") named = f["message"].get<std::string>().find("_DisableTorchDispatch") != std::string::npos;
  EXPECT_TRUE(named) << describe(r);
}

// KernelBench-Hard's check.py loads the reference's state_dict into the
// solution's model (strict): a bias that starts at zero gets the reference's
// values and the answers are right; the record says it was loaded.
TEST(RunnerCpuStateDict, ReferenceStateDictIsLoadedStrictly) {
  SKIP_WITHOUT_TORCH();
  const json r = kaudit::run::run_submission(options("linear_relu", "zero_init_bias.py"));
  EXPECT_EQ(r["result"], "correct") << describe(r);
  ASSERT_TRUE(r.contains("state_dict")) << describe(r);
  const json& sd = r["state_dict"];
  EXPECT_EQ(sd["status"], "loaded") << sd;
  EXPECT_TRUE(sd["strict"].get<bool>()) << sd;
  ASSERT_GE(sd["shapes"].size(), 2u) << "each graded shape's model, and any input probe's" << sd;
  EXPECT_EQ(sd["shapes"][1]["shape_index"], 1) << sd;
  for (const auto& s : sd["shapes"]) {
    EXPECT_EQ(s["status"], "loaded") << s;
    EXPECT_EQ(s["keys"], 1) << s;
  }
}

// A solution that does not declare the reference's parameters fails the
// strict load: a clear error of the submission, not a crash of the harness.
TEST(RunnerCpuStateDict, StrictMismatchIsTheSubmissionsError) {
  SKIP_WITHOUT_TORCH();
  const json r = kaudit::run::run_submission(options("linear_relu", "renamed_bias.py"));
  EXPECT_EQ(r["result"], "error") << describe(r);
  EXPECT_EQ(r["error"]["phase"], "correctness") << describe(r);
  const std::string reason = r["error"]["reason"];
  EXPECT_NE(reason.find("state_dict"), std::string::npos) << reason;
  EXPECT_NE(reason.find("bias"), std::string::npos) << "names the missing key: " << reason;
  EXPECT_EQ(ids(r), Ids{}) << describe(r);
  ASSERT_TRUE(r.contains("state_dict")) << describe(r);
  EXPECT_EQ(r["state_dict"]["status"], "failed") << r["state_dict"];
  EXPECT_NE(r["state_dict"]["reason"].get<std::string>().find("offset"), std::string::npos) << r["state_dict"];
}

// KernelBench's evaluator loads no state_dict: not applicable, and said so.
TEST(RunnerCpuStateDict, KernelBenchFormatLoadsNone) {
  SKIP_WITHOUT_TORCH();
  auto o = options("kb_softplus", "kb_softplus_clean.py");
  o.modes = {"bench"};
  const json r = kaudit::run::run_submission(o);
  EXPECT_EQ(r["result"], "correct") << describe(r);
  ASSERT_TRUE(r.contains("state_dict")) << describe(r);
  EXPECT_EQ(r["state_dict"]["status"], "not applicable") << r["state_dict"];
  EXPECT_NE(r["state_dict"]["reason"].get<std::string>().find("KernelBench"), std::string::npos) << r["state_dict"];
}

// Upstream's own topk folder, as KernelBench-Hard ships it: its reference
// declares a dummy buffer so that the strict load means something. A
// solution without it fails the load, as upstream's check.py fails it; one
// with it loads, and its banned torch.topk shows in the op record.
TEST(RunnerCpuStateDict, UpstreamTopkFolder) {
  SKIP_WITHOUT_TORCH();
  const fs::path upstream = fs::path(KAUDIT_SOURCE_DIR) / "../shared/upstream/kernelbench-hard/problems-h100/05_topk_bitonic";
  if (!fs::exists(upstream / "problem.yaml")) GTEST_SKIP() << "no upstream KernelBench-Hard at " << upstream;
  const fs::path dir = fs::temp_directory_path() / ("kaudit_upstream_topk_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string body =
      "import torch\n\n\nclass Model(torch.nn.Module):\n    def __init__(self, batch, n, k):\n"
      "        super().__init__()\n        self.k = k\n%BUFFER%\n    def forward(self, x):\n"
      "        return x.topk(self.k, dim=-1)\n";
  auto write = [&](const std::string& name, const std::string& buffer) {
    std::string text = body;
    text.replace(text.find("%BUFFER%"), 8, buffer);
    std::ofstream(dir / name) << text;
  };
  write("with_buffer.py", "        self.register_buffer(\"_dummy\", torch.zeros(1))\n");
  write("without_buffer.py", "");
  RunOptions o = options("linear_relu", "clean.py");
  o.problem = upstream;
  o.seeds = 1;
  o.stress_scales.clear();
  o.modes = {"bench"};
  o.trials = 2;
  o.solution = dir / "without_buffer.py";
  const json bad = kaudit::run::run_submission(o);
  o.solution = dir / "with_buffer.py";
  const json good = kaudit::run::run_submission(o);
  fs::remove_all(dir);
  EXPECT_EQ(bad["result"], "error") << describe(bad);
  EXPECT_EQ(bad["state_dict"]["status"], "failed") << describe(bad);
  EXPECT_NE(bad["state_dict"]["reason"].get<std::string>().find("_dummy"), std::string::npos) << describe(bad);
  EXPECT_EQ(good["result"], "correct") << describe(good);
  EXPECT_EQ(good["state_dict"]["status"], "loaded") << describe(good);
  EXPECT_TRUE(ids(good).count("banned-aten-op")) << describe(good);
}
