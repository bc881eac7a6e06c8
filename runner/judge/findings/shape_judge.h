// What a runtime finding family is handed: one shape's probe evidence, the
// file its findings point at, the rule pack's thresholds, and where its
// findings go. Each family (runner/judge/findings/<name>.cpp, listed in
// finding_list.def) reads the evidence and adds its findings here.
#pragma once

#include "rules/finding.h"
#include "runner/judge/probe_findings.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace kaudit::run {

class ShapeJudge {
 public:
  ShapeJudge(const ShapeEvidence& e, const std::string& file, FreshThresholds fresh, std::vector<rules::Finding>& out)
      : e_(e), file_(file), fresh_(fresh), out_(out), shape_("shape " + std::to_string(e.shape)) {}

  const ShapeEvidence& evidence() const { return e_; }
  // The rule pack's thresholds for the fresh-input comparison (never a default of its own).
  const FreshThresholds& fresh() const { return fresh_; }
  // "shape N": every location and message of a shape's findings starts with it.
  const std::string& shape() const { return shape_; }

  // Adds a finding at the catalog's category, confidence and source; the
  // reference lets a family lower the confidence of a lead.
  rules::Finding& add(const std::string& id, const std::string& where, const std::string& message);

  // Whether a timing mode ran and some verified timed call of it was wrong.
  bool mode_failed(const char* mode) const;

 private:
  const ShapeEvidence& e_;
  const std::string& file_;
  const FreshThresholds fresh_;
  std::vector<rules::Finding>& out_;
  const std::string shape_;
};

// The harness's integer count `key` in an output-check object (0 when absent
// or not an integer: a count the harness did not report is no evidence).
int count_of(const nlohmann::json& counts, const char* key);

// A number as messages print it: three significant digits.
std::string fmt3(double v);

}  // namespace kaudit::run
