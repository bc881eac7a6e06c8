// The interface every check implements, in the manner of clang-tidy's
// check modules: one check a file under analyzer/checks/, registered by one
// line in analyzer/checks/check_list.def, tested by tests/analyzer/checks/<id>/
// whose expectations sit on the offending lines (scripts/add_check.sh makes
// all three).
#pragma once

#include "analyzer/cxx/facts.h"
#include "analyzer/python/module.h"
#include "analyzer/source_file.h"
#include "rules/finding.h"
#include "rules/finding_info.h"
#include "rules/problem.h"
#include "rules/rule_pack.h"

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace kaudit::analyzer {

using rules::kCxx;
using rules::kPython;
// A check's entry in the finding catalog (source: static).
using CheckInfo = rules::FindingInfo;

// One C++/CUDA source of the submission with what the front read from it.
struct CxxUnit {
  const SourceFile* file = nullptr;
  const cxx::Facts* facts = nullptr;
};

// Everything read from one submission: a .py with its embedded sources, or
// a standalone .cu/.cpp file.
struct Submission {
  std::string path;
  const python::Module* python = nullptr;  // null for a standalone .cu/.cpp
  std::vector<CxxUnit> cxx;
};

// What a problem folder contributes beyond the rule pack.
struct ProblemFacts {
  const rules::Problem* problem = nullptr;
  std::vector<long long> shape_values;  // every integer in shapes.py's SHAPES (and reference.py's dims)
  const python::Module* reference = nullptr;  // parsed reference.py
};

struct Context {
  const rules::RulePack& rules;
  const ProblemFacts* problem = nullptr;  // null without --problem
};

class FindingSink {
 public:
  explicit FindingSink(std::vector<rules::Finding>& out) : out_(out) {}
  // Records a finding of `check` at `line`/`column` of `file`; embedded
  // lines are mapped back to the .py by SourceFile::location. A finding is
  // about a line, not about how many spellings the line has: a second
  // finding of the same check on the same line of the same file (after
  // mapping, so embedded lines that land on one .py line count once) is
  // dropped, and the first one stands. Findings with no line (0) are all
  // kept. Returns whether the finding was recorded.
  bool report(const CheckInfo& check, const SourceFile& file, int line, int column, std::string message,
              std::string symbol = {}, std::optional<rules::Confidence> confidence = std::nullopt,
              std::optional<rules::Category> category = std::nullopt);

 private:
  std::vector<rules::Finding>& out_;
  std::set<std::tuple<std::string, std::string, int>> reported_;  // (id, file, line)
};

class Check {
 public:
  virtual ~Check() = default;
  virtual const CheckInfo& info() const = 0;
  virtual void run(const Submission& submission, const Context& context, FindingSink& sink) const = 0;
};

}  // namespace kaudit::analyzer
