// Turns what the probes observed on one shape into findings: one family of
// ids a file under runner/judge/findings/, each with its catalog entries.
// Pure: no processes, no files; unit-tested.
#pragma once

#include "rules/finding.h"

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace kaudit::run {

struct ModeEvidence {
  bool samples_ok = true;  // every verified timed call matched the reference
  double median_ms = 0;
  double min_ms = 0;
  nlohmann::json counts;  // the harness's output checks: calls, non_plain, not_tensor, aliases_input, reused
  // The largest share of wrong elements in a failed sample (1 where one
  // could not be compared at all): a stale or skipped answer is wrong nearly
  // everywhere, a numerical near miss in a few elements.
  double wrong_share = 1;
  // How much the mode's identical calls differ: p90 / p10 of its times (1:
  // not measured). The bench mode's is the noise a fresh/bench gap must clear.
  double spread = 1;
};

struct ShapeEvidence {
  int shape = 0;
  bool correctness_passed = true;
  nlohmann::json correctness_counts;  // output checks of the correctness calls
  std::vector<int> mutated_cases;     // correctness cases whose inputs changed
  std::vector<bool> seed_cases_passed;  // the seed cases' checks, in call order
  // Correctness cases whose outputs still held the harness's poison bytes
  // where they were wrong: (case, elements never written). Empty when the
  // run did not poison memory.
  std::vector<std::pair<int, std::size_t>> unwritten_cases;
  // The stream-order probe: returned tensors whose copy on the caller's
  // stream, made right after the call returned, differed from the tensor
  // after a full synchronize.
  int outputs_not_ready = 0;
  // The reference itself returns an output in an input's storage (an
  // in-place problem): a submission doing the same is not output-aliases-input.
  bool reference_aliases_input = false;
  std::map<std::string, ModeEvidence> modes;  // bench, fresh, rewrite
};

// A finding with the catalog's category, confidence and source.
rules::Finding make_probe_finding(const std::string& id, const std::string& file, const std::string& where,
                                  const std::string& message);

// The rule pack's thresholds for speedup-vanishes-with-fresh-inputs: the
// ratio fresh/bench (by the medians and the minima) that raises it, and the
// time fresh inputs add to a call (ms) before it decides rather than leads.
// No defaults of its own: the caller passes the pack's (rules::Thresholds:
// fresh_over_bench or fresh_over_bench_cpu for the device, fresh_gap_ms).
struct FreshThresholds {
  double over_bench;
  double gap_ms;
};

// Runs every family of runtime findings (runner/judge/findings/finding_list.def)
// over one shape's evidence, in the list's order.
std::vector<rules::Finding> probe_findings(const ShapeEvidence& e, const std::string& file, FreshThresholds fresh);

}  // namespace kaudit::run
