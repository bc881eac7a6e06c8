// One shape's correctness as run.json's correctness[] holds it
// (docs/report-format.md, "correctness"): each case checked against the
// reference, the stream-order probe, the reference's own habits. The runner
// writes it (runner/judge/compare.cpp) and the batch report and the timing
// step read it through these types: one writer, one reader.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace kaudit::evidence {

struct CaseCheck {
  int index = 0;  // the case's index among the run's cases ("case")
  std::optional<long long> seed;
  double scale = 1.0;
  std::string kind = "seed";       // seed | bounds | stress
  std::string status = "not run";  // passed | failed | skipped | not run
  std::string reason;
  // The output check's numbers (max_abs_error, max_rel_error, mismatches,
  // tolerated_mismatches, tie_reordered_elements; atol for a stress case).
  nlohmann::json check = nlohmann::json::object();
  std::size_t unwritten_elements = 0;  // wrong elements still holding the poison bytes
  std::vector<int> inputs_mutated;     // inputs the call changed
  std::string inputs_from;             // seed | file

  bool passed() const { return status == "passed"; }
};

struct ShapeCorrectness {
  int shape_index = 0;
  nlohmann::json shape;
  std::vector<CaseCheck> cases;
  nlohmann::json stream_order;      // the stream-order probe (CUDA runs), or null
  nlohmann::json reference_habits;  // the reference's own input writes and aliases, or null
  bool passed = false;
};

nlohmann::json to_json(const CaseCheck& c);
nlohmann::json to_json(const ShapeCorrectness& shape);
nlohmann::json to_json(const std::vector<ShapeCorrectness>& correctness);
// Read back leniently, as run_timing.h reads: what is missing or of another
// type is left out (a shape_index missing is `position`).
ShapeCorrectness shape_correctness_from_json(const nlohmann::json& doc, int position);
std::vector<ShapeCorrectness> correctness_from_json(const nlohmann::json& rows);

}  // namespace kaudit::evidence
