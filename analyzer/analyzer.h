// The analyzer's entry point: reads one submission (a .py with its embedded
// C++/CUDA, or a standalone .cu/.cpp), runs every registered check, and
// returns the findings. Never throws on bad input: what cannot be read
// becomes an `analysis-incomplete` finding and the rest is still analysed.
#pragma once

#include "analyzer/check.h"
#include "analyzer/cxx/front.h"
#include "analyzer/report.h"
#include "rules/finding.h"
#include "rules/problem.h"
#include "rules/rule_pack.h"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kaudit::analyzer {

struct AnalyzerOptions {
  // Unset: the problem's rules (rules::rule_pack_for_problem) with a
  // problem, else the default pack. Set: this pack, with the problem's
  // forbidden list merged in.
  std::optional<rules::RulePack> rules;
  std::optional<rules::Problem> problem;
  cxx::FrontOptions cxx;
  bool read_cxx = true;  // false: skip the Clang front (faster, fewer findings)
};

// What the analyzer learned about a submission beyond its findings.
struct SubmissionFacts {
  // GPU toolchains it imports or calls (analyzer/gpu_toolchains.h); a .cu or
  // .cpp file given alone needs "c++/cuda". Empty: pure PyTorch.
  std::vector<std::string> gpu_toolchains;
};

class Analyzer {
 public:
  explicit Analyzer(AnalyzerOptions options);
  ~Analyzer();

  // `facts`, when given, receives what was learned besides the findings.
  std::vector<rules::Finding> analyze_file(const std::filesystem::path& path, SubmissionFacts* facts = nullptr) const;
  // Analyses text already in memory (tests, benchmarks); `path` decides the language.
  std::vector<rules::Finding> analyze_text(const std::string& path, std::string text,
                                           SubmissionFacts* facts = nullptr) const;

  const rules::RulePack& rules() const { return rules_; }

 private:
  std::vector<rules::Finding> analyze_source(SourceFile file, std::vector<LoadProblem> problems,
                                             SubmissionFacts* facts) const;

  AnalyzerOptions options_;
  rules::RulePack rules_;
  std::unique_ptr<python::Module> reference_;  // the problem's reference.py
  ProblemFacts problem_facts_;
};

// One file analysed and timed, with its facts, as the reports take it.
FileReport report_file(const Analyzer& analyzer, const std::filesystem::path& path);

// What `kaudit analyze` is asked (and kaudit.analyze in Python).
struct AnalyzeRequest {
  std::vector<std::filesystem::path> inputs;  // files, or folders: the source files under them
  std::filesystem::path problem;              // empty: none
  std::filesystem::path rules;                // empty: the problem's pack, else the default
  bool read_cxx = true;
};
struct AnalyzeResult {
  ReportHeader header;
  std::vector<FileReport> reports;
};
// Loads the problem and the rules, expands each folder into the source files
// under it (.py, .cu, .cuh, .cpp, .cc, .cxx; sorted, so the output is stable)
// and analyses every file. Throws std::runtime_error on a missing input or a
// bad problem or rule pack.
AnalyzeResult analyze_inputs(const AnalyzeRequest& request);

// Every integer literal inside the SHAPES assignment of a shapes.py (or,
// when there is none, every integer literal in the file).
std::vector<long long> shape_values_of(const python::Module& shapes);

}  // namespace kaudit::analyzer
