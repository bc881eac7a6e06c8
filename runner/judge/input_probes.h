// The input probes (issue 15, item 4; docs/runner.md, "Input probes"): shapes
// near the graded ones and inputs drawn from other distributions, which the
// reference makes (and accepts) before the submission runs. Here: how their
// calls join the submission's plan, how their outputs are judged against the
// reference, and (pure, unit-tested) which findings their outcomes give.
#pragma once

#include "rules/finding.h"
#include "runner/judge/output_checks.h"
#include "runner/plan/run_plan.h"
#include "runner/plan/run_result.h"
#include "runner/plan/submission_report.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace kaudit::run {

// What the reference reported of the probes it made: the off-grid shapes it
// accepted (`probe_shape`: shape, values, base, dim, from, to, step), the
// dimensions it could not perturb (`probe_skipped`: dim, tried, reason) and,
// per (shape, case), what each probe case is (the `probe` of its `case`).
struct ProbeInventory {
  int base_shape = -1;
  std::vector<nlohmann::json> shapes;
  nlohmann::json skipped = nlohmann::json::array();
  std::map<std::pair<int, int>, nlohmann::json> cases;
};

// The reference's share of RunOptions: the seed it draws probe inputs with
// (the runner's, at random), the off-grid budget and the distributions.
nlohmann::json probe_request(const RunOptions& options, std::mt19937_64& rng);

// Adds the probe calls to the submission's plan (stage_config): each
// distribution case among its graded shape's correctness calls at a random
// place after the first, each off-grid shape's case after the graded shapes
// (`probe_shapes`: the values the harness sets before making the model).
void add_probe_calls(nlohmann::json& stage, const ProbeInventory& probes, int graded_shapes,
                     const std::map<std::pair<int, int>, nlohmann::json>& inputs, std::mt19937_64& rng);

// The reference's outputs on each distribution case's noisy twin (its inputs
// times 1 + e or 1 - e, never handed to the submission): jobs "n_s<shape>_c<case>"
// beside the submission's, for the calls that came back; or, before any call,
// for every distribution case (twin_jobs: the reference computes them beside
// the submission's calls).
void add_twin_jobs(nlohmann::json& jobs, const ProbeInventory& probes, const SubmissionReport& report);
nlohmann::json twin_jobs(const ProbeInventory& probes);

// A failed distribution case is ill-conditioned, and skipped, when (nearly)
// every element the submission got wrong is within the tolerance plus this
// many times how far the reference's own answer moved on the noisy twin.
constexpr double kRoundings = 4.0;

// One probe call's outcome, as the findings read it.
struct InputProbeOutcome {
  std::string kind;      // "off-grid" or "distribution"
  std::string what;      // "k 128 -> 192", "heavy-tailed inputs on shape 0"
  bool aligned = false;  // off-grid: the perturbed size keeps the graded one's divisibility
  std::string status;    // passed, failed, raised, skipped, not run
  bool non_finite = false;  // failed with NaN or infinity where the reference is finite
  std::string reason;
};

// shape-hardcoded (off-grid) and input-distribution-dependent (distribution)
// from the outcomes, one finding of each at most. Wrong values on a shape
// that keeps the graded divisibility, or NaN/infinity where the reference is
// finite: high; wrong values otherwise: medium; only exceptions: low (a lead).
std::vector<rules::Finding> input_probe_findings(const std::vector<InputProbeOutcome>& outcomes,
                                                 const std::string& file);

// Compares every probe call with the reference and writes run.json's
// `input_probes`; `judge`: the graded correctness and timed samples passed
// (otherwise the result is already incorrect and no finding is made).
void judge_input_probes(const RunPlan& plan, const SubmissionReport& report, const ProbeInventory& probes,
                        const std::map<std::string, nlohmann::json>& expected, const std::filesystem::path& xfer,
                        OutputChecks& checks, bool judge, RunResult& result);

}  // namespace kaudit::run
