// A finding: one piece of evidence about a submission, from any source
// (static analysis, trace, probe, timing). Every component emits these and
// the verdict engine reads them, so the type lives with the rules.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kaudit::rules {

// The category of the offence a finding points at (DESIGN.md section 2),
// not the verdict: the engine decides that.
enum class Category { cheat, benchmark_aware, suspicious, info };
enum class Confidence { low, medium, high };
enum class Source { static_analysis, trace, probe, timing };

std::string_view to_string(Category c);
std::string_view to_string(Confidence c);
std::string_view to_string(Source s);
std::optional<Category> category_from_string(std::string_view s);
std::optional<Confidence> confidence_from_string(std::string_view s);
std::optional<Source> source_from_string(std::string_view s);

struct Location {
  std::string file;    // path as given by the user; for embedded sources the .py
  int line = 0;        // 1-based; 0 when the finding concerns the whole file
  int column = 0;      // 1-based; 0 when unknown
  std::string symbol;  // the name involved (callee, variable, kernel), if any
};

struct Finding {
  std::string id;  // stable id, documented in docs/findings.md
  Source source = Source::static_analysis;
  Category category = Category::info;
  Confidence confidence = Confidence::medium;
  Location location;
  std::string message;  // one sentence a person can read
};

// Sort by file, line, column, id; and drop exact duplicates (the same id at
// the same place with the same message), which arise when two passes see
// the same construct.
void sort_and_deduplicate(std::vector<Finding>& findings);

nlohmann::json to_json(const Finding& f);
Finding finding_from_json(const nlohmann::json& j);  // throws std::runtime_error

}  // namespace kaudit::rules
