// Static precision on realistic code (issue 16). tests/analyzer/precision/
// holds a labelled set kept apart from the corpus the checks were developed
// on:
//   clean/<problem>/*.py  solutions written the way strong models write them
//                         (autotuners with self-checks, prepacked weights,
//                         reused output buffers, graphs keyed on shapes,
//                         get_inputs helpers, tuning knobs). None may carry a
//                         high-confidence cheat finding: users read "high" as
//                         "almost surely a cheat", and with --device none a
//                         static_decides id at high confidence is a verdict.
//   cheat/<problem>/*.py  cheats of the same classes, so that precision does
//                         not cost recall. On the offending line:
//                           `# expect: id[, id]` reported, cheat or
//                                                benchmark-aware, at high
//                                                confidence;
//                           `# expect-lead: id`  reported, cheat or
//                                                benchmark-aware, at medium or
//                                                high confidence.
// Every file is analysed with kernels/problems/<problem>.
#include "analyzer/analyzer.h"
#include "analyzer/checks/registry.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace fs = std::filesystem;
using namespace kaudit;

namespace {

const fs::path kRoot = fs::path(KAUDIT_SOURCE_DIR) / "tests" / "analyzer" / "precision";

std::vector<fs::path> files_under(const fs::path& dir) {
  std::vector<fs::path> out;
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".py") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// The analyzer for the problem a file's folder names (one per problem).
const analyzer::Analyzer& analyzer_for(const fs::path& file) {
  static std::map<std::string, std::unique_ptr<analyzer::Analyzer>> cache;
  const std::string problem = file.parent_path().filename().string();
  auto& slot = cache[problem];
  if (!slot) {
    analyzer::AnalyzerOptions options;
    options.problem = rules::load_problem(fs::path(KAUDIT_SOURCE_DIR) / "kernels" / "problems" / problem);
    slot = std::make_unique<analyzer::Analyzer>(std::move(options));
  }
  return *slot;
}

std::string describe(const rules::Finding& f) {
  return f.id + " (" + std::string(rules::to_string(f.category)) + ", " +
         std::string(rules::to_string(f.confidence)) + ") at line " + std::to_string(f.location.line) + ": " +
         f.message;
}

std::string test_name(const ::testing::TestParamInfo<fs::path>& info) {
  std::string name = fs::relative(info.param, kRoot).string();
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

class CleanSet : public ::testing::TestWithParam<fs::path> {};

TEST_P(CleanSet, NoHighConfidenceCheatFinding) {
  const fs::path& path = GetParam();
  const auto findings = analyzer_for(path).analyze_file(path);
  std::string wrong;
  for (const auto& f : findings)
    if (f.category == rules::Category::cheat && f.confidence == rules::Confidence::high) wrong += "  " + describe(f) + "\n";
  EXPECT_TRUE(wrong.empty()) << path.string() << " is clean but got:\n" << wrong;
}

INSTANTIATE_TEST_SUITE_P(Precision, CleanSet, ::testing::ValuesIn(files_under(kRoot / "clean")), test_name);

// A benchmark's name given to a build is a label and a knob that only picks a
// launch size is configuration: neither is a lead (medium) either.
TEST(Precision, LabelsAndKnobsAreNotLeads) {
  const fs::path path = kRoot / "clean" / "topk" / "bitonic_cuda_extension.py";
  size_t knobs = 0;
  for (const auto& f : analyzer_for(path).analyze_file(path)) {
    if (f.id != "harness-sniffing") continue;
    EXPECT_EQ(f.confidence, rules::Confidence::low) << describe(f);
    knobs += f.message.find("TOPK_ROWS_PER_LAUNCH") != std::string::npos;
  }
  EXPECT_EQ(knobs, 1u) << "the knob is still noted, as a knob";
}

// First-call tuning: candidates timed with CUDA events only while a table
// keyed on shapes has no entry (the H200 judged a clean top-k of this kind
// benchmark-aware). A low lead at most, for the run to settle; re-tuning on
// a counter, or-ed to the same test, stays high.
TEST(Precision, FirstCallTuningIsALowLead) {
  const fs::path corpus = fs::path(KAUDIT_SOURCE_DIR) / "kernels" / "corpus";
  for (const char* file : {"topk/clean_first_call_event_tuning.py", "paged_attention/honest_first_call_tuning.py",
                           "w4a16_gemm/honest_first_call_tuning.py"}) {
    const fs::path path = corpus / file;
    size_t seen = 0;
    for (const auto& f : analyzer_for(path).analyze_file(path)) {
      if (f.id != "self-timing") continue;
      ++seen;
      EXPECT_EQ(f.confidence, rules::Confidence::low) << file << ": " << describe(f);
    }
    EXPECT_GT(seen, 0u) << file << ": the timing is still noted, as a lead";
  }
  const fs::path every_eighth = corpus / "topk" / "aware_timing_in_timed_calls.py";
  size_t high = 0;
  for (const auto& f : analyzer_for(every_eighth).analyze_file(every_eighth))
    high += f.id == "self-timing" && f.confidence == rules::Confidence::high;
  EXPECT_GT(high, 0u);
}

struct Expected {
  int line;
  std::string id;
  bool lead;  // medium is enough
};

std::vector<Expected> expectations(const fs::path& path) {
  static const std::regex re(R"(#\s*expect(-lead)?:\s*([a-z0-9-]+(\s*,\s*[a-z0-9-]+)*))");
  static const std::regex id_re("[a-z0-9][a-z0-9-]*");
  std::vector<Expected> out;
  std::ifstream in(path);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    std::smatch m;
    if (!std::regex_search(line, m, re)) continue;
    const std::string ids = m[2].str();
    for (auto it = std::sregex_iterator(ids.begin(), ids.end(), id_re); it != std::sregex_iterator(); ++it)
      out.push_back({n, it->str(), m[1].matched});
  }
  return out;
}

class CheatSet : public ::testing::TestWithParam<fs::path> {};

TEST_P(CheatSet, EveryMarkedCheatIsFound) {
  const fs::path& path = GetParam();
  const auto want = expectations(path);
  ASSERT_FALSE(want.empty()) << path.string() << " marks no expected finding";
  const auto findings = analyzer_for(path).analyze_file(path);
  for (const auto& e : want) {
    bool found = false;
    std::string near;
    for (const auto& f : findings) {
      if (f.id != e.id) continue;
      near += "  " + describe(f) + "\n";
      const bool counts = f.category == rules::Category::cheat || f.category == rules::Category::benchmark_aware;
      const bool strong = f.confidence == rules::Confidence::high ||
                          (e.lead && f.confidence == rules::Confidence::medium);
      if (f.location.line == e.line && counts && strong) found = true;
    }
    EXPECT_TRUE(found) << path.string() << ": " << e.id << " expected at line " << e.line
                       << (e.lead ? " (medium or high)" : " (high)") << "; reported:\n"
                       << (near.empty() ? "  nothing of that id\n" : near);
  }
}

INSTANTIATE_TEST_SUITE_P(Precision, CheatSet, ::testing::ValuesIn(files_under(kRoot / "cheat")), test_name);

// The set must stay large enough to mean something: at least 40 clean files
// over the six problems, each problem represented.
TEST(PrecisionSet, CoversEveryProblem) {
  std::map<std::string, int> per_problem;
  for (const auto& f : files_under(kRoot / "clean")) ++per_problem[f.parent_path().filename().string()];
  int total = 0;
  for (const auto& [p, n] : per_problem) total += n;
  EXPECT_GE(total, 40);
  for (const char* p : {"fp8_gemm", "kda_chunked", "moe_swiglu", "paged_attention", "topk", "w4a16_gemm"})
    EXPECT_GE(per_problem[p], 5) << p;
}

// Users read a finding's confidence as how sure kaudit is; every check says
// in its explanation (and so in docs/findings.md) what makes it high, medium
// or low, with a clean counter-example.
TEST(PrecisionSet, EveryCheckDocumentsItsConfidenceLevels) {
  for (const auto& check : analyzer::all_checks()) {
    const std::string text(check->info().explanation);
    const auto at = text.find("**Confidence.**");
    ASSERT_NE(at, std::string::npos) << check->info().id << " does not document its confidence levels";
    const std::string levels = text.substr(at);
    for (const char* part : {"High", "Medium", "ow", "Clean counter-example:"})
      EXPECT_NE(levels.find(part), std::string::npos) << check->info().id << " says nothing of '" << part << "'";
  }
}

}  // namespace
