// One shape's timing as run.json's timing[] holds it (docs/report-format.md,
// "timing"): the statistics of each mode's timed calls, the sampled calls'
// output checks, throughput against the hardware's peak. The runner writes it
// (runner/judge/judge_timing.cpp) and the batch report reads it
// (report/batch.cpp) through these types: one writer, one reader.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kaudit::evidence {

struct TimingStats {
  std::size_t n = 0;
  double median_ms = 0, mean_ms = 0, min_ms = 0, max_ms = 0, p10_ms = 0, p90_ms = 0, stdev_ms = 0;
};

// Median, mean, extremes, p10, p90 and sample stdev of `times_ms`; none when empty.
std::optional<TimingStats> timing_stats(std::vector<double> times_ms);

struct ModeTiming {
  std::optional<TimingStats> stats;  // none: no call of the mode was timed
  nlohmann::json samples = nlohmann::json::array();  // each sampled call's output check
  bool samples_passed = true;
  nlohmann::json output_checks = nlohmann::json::object();  // the harness's checks of every timed output
  nlohmann::json output_types = nlohmann::json::array();
  std::optional<int> version_counters_moved;  // rewrite mode
  // tflops, gb_per_s, percent_of_compute_peak, percent_of_memory_peak,
  // percent_of_peak (runner/plan/throughput.h), with the stats only.
  nlohmann::json throughput = nlohmann::json::object();
  nlohmann::json runner_clock;  // the runner's own clock against the timings, or null

  std::optional<double> median_ms() const { return stats ? std::optional(stats->median_ms) : std::nullopt; }
  std::optional<double> percent_of_peak() const;
};

struct ShapeTiming {
  int shape_index = 0;
  nlohmann::json shape;  // the shape's values, as the problem's SHAPES gives them
  std::map<std::string, ModeTiming> modes;
  nlohmann::json work = nlohmann::json::object();  // the throughput basis: flops, bytes, peaks
  std::optional<double> fresh_over_bench;

  // Fresh mode's median over bench mode's, where both were timed.
  void set_fresh_over_bench();
};

nlohmann::json to_json(const ShapeTiming& timing);
nlohmann::json to_json(const std::vector<ShapeTiming>& timing);
// Read back, leniently: a document of another kaudit, or one edited by hand,
// gives what it has; a field missing or of another type is left out (a
// shape_index missing is `position`).
ShapeTiming shape_timing_from_json(const nlohmann::json& doc, int position);
std::vector<ShapeTiming> timing_from_json(const nlohmann::json& rows);

}  // namespace kaudit::evidence
