// run.json's `settings` (docs/runner.md, "The result document"): what a run
// was asked to do and the thresholds it judged by. The run's plan writes it
// (RunPlan::settings), the reference's shapes complete it, and the batch
// report reads it, through these types.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kaudit::evidence {

// Which of the problem's graded shapes ran (--shapes).
struct ShapeSelection {
  std::string selection = "all";      // all | smallest
  std::optional<int> graded;          // the problem's graded shapes, once the reference reported them
  std::optional<std::vector<int>> run;  // the indices of those that ran
};

struct RunSettings {
  int seeds = 0;  // correctness seeds per shape
  std::vector<double> stress_scales;
  int warmup = 0, trials = 0, samples = 0;
  nlohmann::json tolerance;  // per output dtype (runner/plan/tolerance.h ToleranceTable::to_json)
  double setup_timeout_s = 0, phase_timeout_s = 0, call_timeout_s = 0;
  double fresh_over_bench_threshold = 0, stress_mismatch_fraction = 0, near_miss_fraction = 0;
  std::uint64_t near_miss_elements = 0;
  int off_grid_shapes = 0;
  ShapeSelection shapes;
  std::vector<std::string> distributions;
  bool trace = false, trace_reference = false;
};

nlohmann::json to_json(const ShapeSelection& shapes);
nlohmann::json to_json(const RunSettings& settings);
// Read back leniently (json_fields.h): a field missing or of another type
// keeps its default.
RunSettings run_settings_from_json(const nlohmann::json& doc);

}  // namespace kaudit::evidence
