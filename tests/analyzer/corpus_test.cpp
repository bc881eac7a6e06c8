// The static part of every corpus expectation (kernels/corpus/manifest.json):
// analysed with its problem, each submission reports exactly the expected
// finding ids of category cheat or benchmark-aware (and analysis-incomplete
// where expected), no more, no fewer.
#include "analyzer/analyzer.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace kaudit;

namespace {

struct Entry {
  std::string path, problem;
  std::set<std::string> expected;  // static_findings: reported, at high confidence where the manifest says so
  std::set<std::string> leads;     // static_leads: reported below high confidence only, for a run to settle
};

std::vector<Entry> entries() {
  std::vector<Entry> out;
  std::ifstream in(fs::path(KAUDIT_SOURCE_DIR) / "kernels/corpus/manifest.json");
  if (!in) return out;
  const json doc = json::parse(in);
  for (const auto& e : doc.at("entries")) {
    Entry x{e.at("path"), e.value("problem", ""), {}, {}};
    for (const auto& id : e.value("static_findings", json::array())) x.expected.insert(id.get<std::string>());
    for (const auto& id : e.value("static_leads", json::array())) x.leads.insert(id.get<std::string>());
    out.push_back(std::move(x));
  }
  return out;
}

const analyzer::Analyzer& analyzer_for(const std::string& problem) {
  static std::map<std::string, std::unique_ptr<analyzer::Analyzer>> cache;
  auto& slot = cache[problem];
  if (!slot) {
    analyzer::AnalyzerOptions options;
    if (!problem.empty()) options.problem = rules::load_problem(fs::path(KAUDIT_SOURCE_DIR) / problem);
    slot = std::make_unique<analyzer::Analyzer>(std::move(options));
  }
  return *slot;
}

// Test names and failure messages show the path, not the struct's bytes.
void PrintTo(const Entry& e, std::ostream* os) { *os << e.path; }

class Corpus : public ::testing::TestWithParam<Entry> {};

TEST_P(Corpus, StaticFindingsMatchTheManifest) {
  const Entry& e = GetParam();
  const auto findings = analyzer_for(e.problem).analyze_file(fs::path(KAUDIT_SOURCE_DIR) / e.path);
  std::set<std::string> got;
  std::string detail;
  for (const auto& f : findings) {
    const bool counts = f.category == rules::Category::cheat || f.category == rules::Category::benchmark_aware ||
                        f.id == "analysis-incomplete";
    if (!counts) continue;
    got.insert(f.id);
    detail += "  " + f.id + " (" + std::string(rules::to_string(f.confidence)) + ") at line " +
              std::to_string(f.location.line) + ": " + f.message + "\n";
    if (e.leads.count(f.id)) {
      EXPECT_NE(f.confidence, rules::Confidence::high) << e.path << ": a lead at high:\n" << detail;
    }
  }
  std::set<std::string> want = e.expected;
  want.insert(e.leads.begin(), e.leads.end());
  EXPECT_EQ(got, want) << e.path << " reported:\n" << detail;
}

std::string name_of(const ::testing::TestParamInfo<Entry>& info) {
  std::string n = fs::path(info.param.path).parent_path().filename().string() + "_" +
                  fs::path(info.param.path).stem().string();
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Manifest, Corpus, ::testing::ValuesIn(entries()), name_of);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Corpus);

}  // namespace
