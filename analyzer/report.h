// Output formats of `kaudit analyze`: text for people, JSON (schema
// "kaudit-analysis/1", docs/report-format.md) and SARIF 2.1.0 for
// code-scanning UIs and editors.
#pragma once

#include "rules/finding.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace kaudit::analyzer {

struct FileReport {
  std::string path;
  std::vector<rules::Finding> findings;
  double seconds = 0;  // analysis time of this file
  // GPU toolchains it needs (SubmissionFacts); written to JSON when known.
  std::optional<std::vector<std::string>> gpu_toolchains;
};

struct ReportHeader {
  std::string rules_name;    // the rule pack used
  std::string problem_name;  // empty without --problem
};

std::string render_text(const std::vector<FileReport>& files, bool color = false);
nlohmann::json render_json(const std::vector<FileReport>& files, const ReportHeader& header);
nlohmann::json render_sarif(const std::vector<FileReport>& files, const ReportHeader& header);

// 1 when any finding is of category cheat or benchmark-aware, else 0.
int exit_status_for(const std::vector<FileReport>& files);

}  // namespace kaudit::analyzer
