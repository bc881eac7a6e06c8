#include "rules/finding.h"
#include "rules/problem.h"
#include "rules/rule_pack.h"

#include <gtest/gtest.h>

#include <set>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using namespace kaudit::rules;

namespace {

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

fs::path temp_dir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("kaudit_rules_test_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

TEST(Finding, JsonRoundTrip) {
  Finding f;
  f.id = "banned-call";
  f.source = Source::trace;
  f.category = Category::benchmark_aware;
  f.confidence = Confidence::high;
  f.location = {"solution.py", 12, 5, "torch.matmul"};
  f.message = "torch.matmul is banned.";
  const Finding back = finding_from_json(to_json(f));
  EXPECT_EQ(back.id, f.id);
  EXPECT_EQ(back.source, Source::trace);
  EXPECT_EQ(back.category, Category::benchmark_aware);
  EXPECT_EQ(back.confidence, Confidence::high);
  EXPECT_EQ(back.location.line, 12);
  EXPECT_EQ(back.location.symbol, "torch.matmul");
  EXPECT_EQ(to_json(f)["category"], "benchmark-aware");
}

TEST(Finding, RejectsUnknownCategory) {
  auto j = to_json(Finding{});
  j["category"] = "evil";
  EXPECT_THROW(finding_from_json(j), std::runtime_error);
}

TEST(Finding, SortAndDeduplicate) {
  Finding a{"x", Source::static_analysis, Category::cheat, Confidence::low, {"b.py", 3, 0, ""}, "m"};
  Finding b{"x", Source::static_analysis, Category::cheat, Confidence::low, {"a.py", 9, 0, ""}, "m"};
  std::vector<Finding> v = {a, b, a};
  sort_and_deduplicate(v);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].location.file, "a.py");
}

TEST(RulePack, DefaultPackLoadsAndBansCoreMath) {
  const RulePack p = default_rule_pack();
  EXPECT_EQ(p.name, "default");
  EXPECT_TRUE(contains(p.banned_python_ops, "torch.matmul"));
  EXPECT_TRUE(contains(p.banned_tensor_methods, "topk"));
  EXPECT_TRUE(p.matmul_operator_banned);
  EXPECT_FALSE(p.banned_cxx_symbols.empty());
}

TEST(RulePack, MergesProblemForbiddenList) {
  RulePack p = rule_pack_from_json({{"schema", "kaudit-rules/1"}, {"name", "t"}});
  merge_problem_forbidden(p, {"torch.topk", "F.linear", "torch.Tensor.sort", "at::matmul", "torch.matmul"});
  EXPECT_TRUE(contains(p.banned_python_ops, "torch.topk"));
  EXPECT_TRUE(contains(p.banned_tensor_methods, "topk"));
  EXPECT_TRUE(contains(p.banned_python_ops, "torch.nn.functional.linear"));
  EXPECT_TRUE(contains(p.banned_tensor_methods, "sort"));
  EXPECT_FALSE(contains(p.banned_python_ops, "torch.Tensor.sort"));
  EXPECT_TRUE(contains(p.banned_cxx_symbols, "^at::matmul$"));
  EXPECT_TRUE(p.matmul_operator_banned);
  EXPECT_EQ(p.problem_forbidden.size(), 5u);
}

TEST(RulePack, RejectsBadSchemaAndBadRegex) {
  EXPECT_THROW(rule_pack_from_json({{"schema", "other/2"}}), std::runtime_error);
  EXPECT_THROW(rule_pack_from_json({{"schema", "kaudit-rules/1"}, {"banned", {{"cxx_symbols", {"(unclosed"}}}}}),
               std::runtime_error);
  const fs::path d = temp_dir("badjson");
  std::ofstream(d / "pack.json") << "{ not json";
  EXPECT_THROW(load_rule_pack(d / "pack.json"), std::runtime_error);
  EXPECT_THROW(load_rule_pack(d / "missing.json"), std::runtime_error);
}

TEST(Problem, LoadsKernelBenchHardFolder) {
  const fs::path d = temp_dir("kbh");
  std::ofstream(d / "problem.yaml") << "name: topk\nprecision: fp32\nforbidden:\n  - torch.topk\n  - torch.sort\n"
                                       "tolerance: {atol: 1.0e-4, rtol: 1.0e-4}\nnum_perf_trials: 50\n";
  std::ofstream(d / "reference.py") << "import torch\n";
  std::ofstream(d / "shapes.py") << "SHAPES = [dict(batch=1, n=131072, k=64)]\n";
  const Problem p = load_problem(d);
  EXPECT_EQ(p.name, "topk");
  EXPECT_EQ(p.format, ProblemFormat::kernelbench_hard);
  EXPECT_EQ(p.forbidden, (std::vector<std::string>{"torch.topk", "torch.sort"}));
  EXPECT_EQ(p.yaml["num_perf_trials"], 50);
  EXPECT_DOUBLE_EQ(p.yaml["tolerance"]["atol"].get<double>(), 1e-4);
  EXPECT_FALSE(p.shapes.empty());
}

// GPU MODE's reference-kernels layout is refused by name, with the reason,
// rather than read as a KernelBench folder and failed later (issue 15, 5d).
TEST(Problem, GpuModeTaskFolderIsRefusedWithTheReason) {
  const fs::path d = temp_dir("gpumode");
  std::ofstream(d / "task.yml") << "files:\n  - {name: submission.py, source: submission.py}\nlang: py\n";
  std::ofstream(d / "reference.py") << "def ref_kernel(data):\n    return data\ndef generate_input(size, seed):\n"
                                       "    return None\n";
  std::ofstream(d / "submission.py") << "def custom_kernel(data):\n    return data\n";
  try {
    load_problem(d);
    FAIL() << "a GPU MODE task folder was loaded";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("GPU MODE"), std::string::npos) << what;
    EXPECT_NE(what.find("custom_kernel"), std::string::npos) << what;
  }
}

TEST(Problem, LoadsKernelBenchFolderAndRejectsJunk) {
  const fs::path d = temp_dir("kb");
  std::ofstream(d / "1_Square_matmul.py") << "import torch\n";
  EXPECT_EQ(load_problem(d).format, ProblemFormat::kernelbench);
  const fs::path bad = temp_dir("bad");
  std::ofstream(bad / "problem.yaml") << "forbidden: [unclosed\n";
  std::ofstream(bad / "reference.py") << "\n";
  EXPECT_THROW(load_problem(bad), std::runtime_error);
  EXPECT_THROW(load_problem(temp_dir("empty")), std::runtime_error);
  EXPECT_THROW(load_problem(d / "nope"), std::runtime_error);
}

}  // namespace

namespace {

TEST(RulePack, EveryPackUnderRulesPacksIsBuiltInAndValid) {
  const fs::path packs = fs::path(KAUDIT_SOURCE_DIR) / "rules" / "packs";
  int n = 0;
  for (const auto& e : fs::directory_iterator(packs)) {
    if (e.path().extension() != ".json") continue;
    ++n;
    const auto builtin = builtin_rule_pack(e.path().stem().string());
    ASSERT_TRUE(builtin.has_value()) << e.path();
    EXPECT_EQ(builtin->name, load_rule_pack(e.path()).name);
  }
  EXPECT_GE(n, 1);
  EXPECT_FALSE(builtin_rule_pack("no-such-pack").has_value());
}

TEST(RulePack, ProblemWithoutItsOwnPackBansOnlyItsForbiddenList) {
  Problem p;
  p.name = "made_up_problem";
  p.forbidden = {"torch.topk"};
  const RulePack r = rule_pack_for_problem(p);
  EXPECT_EQ(r.name, "made_up_problem");
  EXPECT_TRUE(contains(r.banned_python_ops, "torch.topk"));
  EXPECT_FALSE(contains(r.banned_python_ops, "torch.matmul")) << "the default pack's bans do not apply";
  EXPECT_EQ(r.verdict.static_decides, default_rule_pack().verdict.static_decides) << "the verdict policy is kept";
  EXPECT_EQ(r.thresholds.fresh_over_bench, default_rule_pack().thresholds.fresh_over_bench);
}

// The default thresholds are written once, in rules::Thresholds: the default
// pack is those, and no bundled pack restates one (a pack that did would
// keep the old value when the default changes).
TEST(RulePack, DefaultThresholdsAreWrittenOnlyInTheStruct) {
  EXPECT_EQ(default_rule_pack().thresholds, Thresholds{});
  int packs = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(KAUDIT_SOURCE_DIR) / "rules" / "packs")) {
    if (entry.path().extension() != ".json") continue;
    ++packs;
    const nlohmann::json doc = nlohmann::json::parse(std::ifstream(entry.path()));
    if (!doc.contains("thresholds")) continue;
    const Thresholds stated = rule_pack_from_json(doc).thresholds;
    for (const auto& [key, value] : doc.at("thresholds").items()) {
      nlohmann::json without = doc;
      without.at("thresholds").erase(key);
      EXPECT_NE(rule_pack_from_json(without).thresholds, stated)
          << entry.path().filename() << " restates the default thresholds." << key << " = " << value.dump();
    }
  }
  EXPECT_GT(packs, 1);
}

TEST(RulePack, ThresholdsAndPolicyAreTyped) {
  const RulePack p = rule_pack_from_json({{"schema", "kaudit-rules/1"},
                                          {"thresholds", {{"fresh_over_bench", 2.5}, {"stress_mismatch_fraction", 0.01}, {"near_miss_fraction", 0.0}}},
                                          {"verdict", {{"static_decides", {"dynamic-code"}},
                                                       {"confirmed_by", {{"banned-call", {"banned-library-kernel"}}}},
                                                       {"runtime_min_confidence", "high"}}}});
  EXPECT_EQ(p.thresholds.fresh_over_bench, 2.5);
  EXPECT_EQ(p.thresholds.fresh_over_bench_cpu, 5.0) << "an absent threshold keeps its default";
  EXPECT_EQ(p.thresholds.stress_mismatch_fraction, 0.01);
  EXPECT_EQ(p.thresholds.near_miss_fraction, 0.0);
  EXPECT_EQ(default_rule_pack().thresholds.near_miss_fraction, 1e-6);
  EXPECT_EQ(p.verdict.static_decides, std::set<std::string>{"dynamic-code"});
  EXPECT_EQ(p.verdict.confirmed_by.at("banned-call"), std::vector<std::string>{"banned-library-kernel"});
  EXPECT_EQ(p.verdict.runtime_min_confidence, Confidence::high);
  const RulePack no_policy = rule_pack_from_json({{"schema", "kaudit-rules/1"}});
  EXPECT_EQ(no_policy.verdict.confirmed_by, default_rule_pack().verdict.confirmed_by)
      << "a pack without a verdict section follows the default pack's";
}

TEST(RulePack, MalformedThresholdsAndPolicyAreErrors) {
  EXPECT_THROW(rule_pack_from_json({{"schema", "kaudit-rules/1"}, {"thresholds", {{"fresh_over_bench", "x"}}}}),
               std::runtime_error);
  EXPECT_THROW(rule_pack_from_json({{"schema", "kaudit-rules/1"}, {"thresholds", {{"fresh_over_bnech", 2}}}}),
               std::runtime_error)
      << "a misspelt threshold is an error, not a silent default";
  EXPECT_THROW(rule_pack_from_json({{"schema", "kaudit-rules/1"}, {"verdict", {{"static_min_confidence", "sure"}}}}),
               std::runtime_error);
}

TEST(RulePack, ProblemWithItsOwnPackUsesIt) {
  Problem p;
  p.name = "topk";
  p.forbidden = {"torch.Tensor.kthvalue"};
  const RulePack r = rule_pack_for_problem(p);
  EXPECT_EQ(r.name, "topk");
  EXPECT_TRUE(contains(r.banned_python_ops, "torch.topk"));
  EXPECT_TRUE(contains(r.banned_tensor_methods, "kthvalue"));
}

}  // namespace

TEST(Problem, KernelBenchFileGivenDirectly) {
  const fs::path dir = fs::temp_directory_path() / "kaudit_kb_level_test";
  fs::create_directories(dir);
  std::ofstream(dir / "1_relu.py") << "import torch\nclass Model(torch.nn.Module):\n    pass\n";
  std::ofstream(dir / "2_gelu.py") << "import torch\nclass Model(torch.nn.Module):\n    pass\n";
  EXPECT_THROW(load_problem(dir), std::runtime_error) << "a folder of several .py is not one problem";
  const Problem p = load_problem(dir / "1_relu.py");
  EXPECT_EQ(p.format, ProblemFormat::kernelbench);
  EXPECT_TRUE(p.single_file);
  EXPECT_EQ(p.name, "1_relu");
  EXPECT_EQ(p.reference, dir / "1_relu.py");
  EXPECT_EQ(problem_files(p), std::vector<std::string>{"1_relu.py"});
  EXPECT_THROW(load_problem(dir / "missing.py"), std::runtime_error);
  fs::remove_all(dir);
}

// Every KernelBench level-1 file upstream reads as a problem of its own.
TEST(Problem, UpstreamKernelBenchLevelOneFilesRead) {
  const fs::path level = fs::path(KAUDIT_SOURCE_DIR) / ".." / "shared" / "upstream" / "kernelbench" / "KernelBench" / "level1";
  if (!fs::is_directory(level)) GTEST_SKIP() << "no " << level << " (../shared is absent)";
  int read = 0;
  for (const auto& e : fs::directory_iterator(level)) {
    if (e.path().extension() != ".py") continue;
    const Problem p = load_problem(e.path());
    EXPECT_EQ(p.format, ProblemFormat::kernelbench) << e.path();
    ++read;
  }
  EXPECT_GE(read, 100);
}

