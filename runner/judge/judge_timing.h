// The timing step of a run: per shape and mode, the statistics of the timed
// calls, the sampled timed calls' outputs checked against the reference,
// throughput against the hardware's peak, and the probes' findings for the
// shape (runner/judge/probe_findings.h).
#pragma once

#include "runner/judge/output_checks.h"
#include "runner/process/hardware.h"
#include "runner/plan/run_plan.h"
#include "runner/plan/run_result.h"
#include "runner/plan/submission_report.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kaudit::run {

// Fills result.timing (one document per shape) and adds the probes'
// findings; a sampled timed call that fails makes the run incorrect.
void judge_timing(const RunPlan& plan, const SubmissionReport& report,
                  const std::map<std::string, nlohmann::json>& expected, const std::map<int, nlohmann::json>& habits,
                  const std::map<int, bool>& shape_correct, const nlohmann::json& shapes,
                  const std::optional<Hardware>& hardware, const std::filesystem::path& xfer, OutputChecks& checks,
                  RunResult& result);

}  // namespace kaudit::run
