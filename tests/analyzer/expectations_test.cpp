// Runs the analyzer on every test input under tests/analyzer/checks/ and
// tests/analyzer/clean/ and compares its findings with the expectations
// written on the offending lines (see CONTRIBUTING.md):
//   `# expect: id[, id]`  or  `// expect: id`   a finding of id on this line
//   `expect-file: id`                          a finding of id with no line
//   `kaudit-test: problem=DIR`                 analyse with this problem folder
//   `kaudit-test: ignore=id[,id]`              do not compare these ids here
// A file under tests/analyzer/checks/<id>/ compares the findings of <id>
// only, unless it says
//   `kaudit-test: compare=all`                 compare every id
//   `kaudit-test: also=id[,id]`                compare these ids too
// Files elsewhere (clean/) compare every id.
// Any missing or extra finding fails the test.
#include "analyzer/analyzer.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace fs = std::filesystem;
using kaudit::analyzer::Analyzer;
using kaudit::analyzer::AnalyzerOptions;

namespace {

struct Expectations {
  std::multiset<std::pair<int, std::string>> findings;  // (line, id); line 0 for expect-file
  std::set<std::string> ignore;
  std::set<std::string> also;  // kaudit-test: also=
  bool compare_all = false;    // kaudit-test: compare=all
  std::string problem;         // relative to the file's folder
};

std::vector<std::string> split_ids(const std::string& s) {
  std::vector<std::string> ids;
  std::regex id_re("[a-z0-9][a-z0-9-]*");
  for (auto it = std::sregex_iterator(s.begin(), s.end(), id_re); it != std::sregex_iterator(); ++it)
    ids.push_back(it->str());
  return ids;
}

Expectations read_expectations(const fs::path& path) {
  Expectations e;
  std::ifstream in(path, std::ios::binary);
  std::string line;
  int n = 0;
  static const std::regex expect_re(R"((#|//)\s*expect:\s*([a-z0-9-]+(\s*,\s*[a-z0-9-]+)*))");
  static const std::regex file_re(R"(expect-file:\s*([a-z0-9-]+(\s*,\s*[a-z0-9-]+)*))");
  static const std::regex problem_re(R"(kaudit-test:\s*problem=(\S+))");
  static const std::regex ignore_re(R"(kaudit-test:\s*ignore=([a-z0-9,-]+))");
  static const std::regex also_re(R"(kaudit-test:\s*also=([a-z0-9,-]+))");
  static const std::regex compare_all_re(R"(kaudit-test:\s*compare=all\b)");
  while (std::getline(in, line)) {
    ++n;
    std::smatch m;
    if (std::regex_search(line, m, expect_re))
      for (const auto& id : split_ids(m[2].str())) e.findings.insert({n, id});
    if (std::regex_search(line, m, file_re))
      for (const auto& id : split_ids(m[1].str())) e.findings.insert({0, id});
    if (std::regex_search(line, m, problem_re)) e.problem = m[1].str();
    if (std::regex_search(line, m, ignore_re))
      for (const auto& id : split_ids(m[1].str())) e.ignore.insert(id);
    if (std::regex_search(line, m, also_re))
      for (const auto& id : split_ids(m[1].str())) e.also.insert(id);
    if (std::regex_search(line, m, compare_all_re)) e.compare_all = true;
  }
  return e;
}

std::vector<fs::path> test_inputs() {
  std::vector<fs::path> files;
  const fs::path root = fs::path(KAUDIT_SOURCE_DIR) / "tests" / "analyzer";
  for (const char* sub : {"checks", "clean"}) {
    if (!fs::exists(root / sub)) continue;
    for (const auto& e : fs::recursive_directory_iterator(root / sub)) {
      const auto ext = e.path().extension();
      if (e.is_regular_file() && (ext == ".py" || ext == ".cu" || ext == ".cpp")) files.push_back(e.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

const Analyzer& analyzer_for(const std::string& problem_dir) {
  static std::map<std::string, std::unique_ptr<Analyzer>> cache;
  auto& slot = cache[problem_dir];
  if (!slot) {
    AnalyzerOptions options;
    if (!problem_dir.empty()) options.problem = kaudit::rules::load_problem(problem_dir);
    slot = std::make_unique<Analyzer>(std::move(options));
  }
  return *slot;
}

// The check a fixture belongs to: <id> for tests/analyzer/checks/<id>/...,
// empty elsewhere.
std::string owning_check(const fs::path& path) {
  const fs::path checks = fs::path(KAUDIT_SOURCE_DIR) / "tests" / "analyzer" / "checks";
  const fs::path rel = path.lexically_relative(checks);
  if (rel.empty() || *rel.begin() == ".." || std::distance(rel.begin(), rel.end()) < 2) return {};
  return rel.begin()->string();
}

// Whether findings of `id` are compared in this file.
bool compared(const Expectations& want, const std::string& owner, const std::string& id) {
  if (want.ignore.count(id)) return false;
  if (owner.empty() || want.compare_all) return true;
  return id == owner || want.also.count(id) > 0;
}

class Expectation : public ::testing::TestWithParam<fs::path> {};

TEST_P(Expectation, FindingsMatchInlineExpectations) {
  const fs::path path = GetParam();
  const Expectations want = read_expectations(path);
  const std::string problem = want.problem.empty() ? "" : (path.parent_path() / want.problem).string();
  const auto findings = analyzer_for(problem).analyze_file(path);
  const std::string owner = owning_check(path);

  std::multiset<std::pair<int, std::string>> got;
  std::map<std::pair<int, std::string>, std::string> messages;
  for (const auto& f : findings) {
    if (!compared(want, owner, f.id)) continue;
    EXPECT_EQ(f.location.file, path.string()) << "finding " << f.id << " points at another file";
    got.insert({f.location.line, f.id});
    messages[{f.location.line, f.id}] = f.message;
  }
  std::multiset<std::pair<int, std::string>> expected;
  for (const auto& e : want.findings)
    if (compared(want, owner, e.second)) expected.insert(e);

  std::ostringstream missing, extra;
  for (const auto& e : expected)
    if (got.count(e) < expected.count(e) && missing.str().find(e.second + " at line " + std::to_string(e.first)) == std::string::npos)
      missing << "  " << e.second << " at line " << e.first << "\n";
  for (const auto& g : got)
    if (expected.count(g) < got.count(g) && extra.str().find(g.second + " at line " + std::to_string(g.first)) == std::string::npos)
      extra << "  " << g.second << " at line " << g.first << ": " << messages[g] << "\n";
  EXPECT_TRUE(missing.str().empty()) << path.string() << ": expected but not reported:\n" << missing.str();
  EXPECT_TRUE(extra.str().empty()) << path.string() << ": reported but not expected:\n" << extra.str();
}

std::string test_name(const ::testing::TestParamInfo<fs::path>& info) {
  const fs::path root = fs::path(KAUDIT_SOURCE_DIR) / "tests" / "analyzer";
  std::string name = fs::relative(info.param, root).string();
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Inputs, Expectation, ::testing::ValuesIn(test_inputs()), test_name);

// Confidence decides whether a static benchmark-aware finding stands alone
// (rule pack: static_min_confidence high): a table of exactly the graded
// shapes that an assert on membership guards is refused on purpose.
TEST(ShapeHardcoded, TableGuardedByAMembershipAssertIsHighConfidence) {
  const fs::path dir = fs::path(KAUDIT_SOURCE_DIR) / "tests" / "analyzer" / "checks" / "shape-hardcoded";
  const auto& an = analyzer_for((dir / "../../../../kernels/problems/w4a16_gemm").string());
  bool found = false;
  for (const auto& f : an.analyze_file(dir / "table_small_dims.py")) {
    if (f.id != "shape-hardcoded") continue;
    found = true;
    EXPECT_EQ(f.confidence, kaudit::rules::Confidence::high) << f.message;
    EXPECT_NE(f.message.find("assert or a raise"), std::string::npos) << f.message;
  }
  EXPECT_TRUE(found);
}
// A C++ getenv of a variable the harness names is high, as in Python; a
// knob's name (BLOCK) stays a medium lead: C++ reads are not followed.
TEST(HarnessSniffing, CxxGetenvOfTheHarnessesVariableIsHighConfidence) {
  const fs::path file = fs::path(KAUDIT_SOURCE_DIR) / "tests" / "analyzer" / "checks" / "harness-sniffing" / "getenv.cpp";
  std::map<std::string, kaudit::rules::Confidence> by_variable;
  for (const auto& f : analyzer_for("").analyze_file(file))
    for (const char* name : {"KERNELBENCH_PHASE", "BLOCK"})
      if (f.id == "harness-sniffing" && f.message.find(std::string("variable ") + name + ",") != std::string::npos)
        by_variable[name] = f.confidence;
  ASSERT_EQ(by_variable.size(), 2u) << "each read names its variable";
  EXPECT_EQ(by_variable["KERNELBENCH_PHASE"], kaudit::rules::Confidence::high);
  EXPECT_EQ(by_variable["BLOCK"], kaudit::rules::Confidence::medium);
}
// What lookalikes.py reads from the environment only picks configurations
// (an autotuner's candidates): a note, never a lead.
TEST(HarnessSniffing, KnobsThatPickConfigurationsAreLow) {
  const fs::path file = fs::path(KAUDIT_SOURCE_DIR) / "tests" / "analyzer" / "checks" / "harness-sniffing" / "lookalikes.py";
  size_t notes = 0;
  for (const auto& f : analyzer_for("").analyze_file(file))
    if (f.id == "harness-sniffing") {
      ++notes;
      EXPECT_EQ(f.confidence, kaudit::rules::Confidence::low) << f.message;
    }
  EXPECT_EQ(notes, 1u);
}
// A KernelBench reference that spells its product `x @ w` bans every
// spelling of it as a lead (analyzer/reference_ops.cpp): torch.matmul, torch.mm,
// x.matmul and the operator itself are medium, for the trace to settle.
TEST(ReferenceOps, EveryMatmulSpellingIsALead) {
  const fs::path dir = fs::path(KAUDIT_SOURCE_DIR) / "tests" / "analyzer" / "checks" / "banned-call";
  const auto& an = analyzer_for((dir / "../../../../kernels/problems/kb_gemm_gelu").string());
  size_t leads = 0;
  for (const auto& f : an.analyze_file(dir / "reference_ops_matmul_spellings.py")) {
    if (f.id != "banned-call") continue;
    ++leads;
    EXPECT_EQ(f.confidence, kaudit::rules::Confidence::medium) << f.message;
    EXPECT_NE(f.message.find("the problem's reference computes with"), std::string::npos) << f.message;
  }
  EXPECT_EQ(leads, 4u);
}
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Expectation);

}  // namespace
