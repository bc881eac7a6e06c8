// Comparing what the submission returned with what the reference expects,
// outside the submission's process: the output files of one call, and the
// correctness step over every shape and case of a run.
#pragma once

#include "runner/plan/run_plan.h"
#include "runner/plan/run_result.h"
#include "runner/plan/submission_report.h"
#include "runner/process/tensor_file.h"
#include "runner/plan/tolerance.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kaudit::run {

// A tensor entry a child reported ({"file": NAME} or {"value": ...}): NAME
// is "FOLDER/FILE" with FOLDER one of `folders` (runner/process/workspace.h: "in",
// "exp", "out", as many as are allowed, separated by "|"), and names a
// regular file there, not a link.
bool valid_entry(const nlohmann::json& e, const std::filesystem::path& xfer, std::string_view folders);
bool valid_entries(const nlohmann::json& list, const std::filesystem::path& xfer, std::string_view folders);

// Outputs of one call against the reference's.
struct OutputCheck {
  std::string status;  // passed, failed, skipped
  std::string reason;
  double max_abs = 0, max_rel = 0;
  std::size_t mismatches = 0;
  std::size_t elements = 0;
  double atol = 0;  // the absolute tolerance applied (the largest, over outputs of several dtypes)
  std::size_t unwritten = 0;  // mismatches still holding the poison bytes (Comparison::poison_pattern)
  std::size_t far_mismatches = 0;  // Comparison::far_mismatches
  std::size_t tie_reordered = 0;   // index elements that differ only in tied values' order (index_ties.h)
};

// Largest finite |value| over the floating-point tensors of one call's outputs.
double magnitude(const std::vector<TensorFile>& tensors);
// The tensors of an entry list (plain values are not tensors).
std::vector<TensorFile> read_output_files(const nlohmann::json& outputs, const std::filesystem::path& xfer);

// Each output against the reference's with the tolerance of the reference
// output's dtype. `stress_baseline`: for a numeric-stress case, the
// magnitude of the reference's output on the unscaled inputs (see compare.cpp).
OutputCheck check_outputs(const nlohmann::json& got, const nlohmann::json& expected, const std::filesystem::path& xfer,
                          const ToleranceTable& tolerances, std::optional<double> stress_baseline,
                          double stress_allowance = 0, NearMissAllowance near_miss = {});
nlohmann::json output_check_json(const OutputCheck& c);

// Why the reference gave no expected output for a job, where it raised on
// its inputs or stopped first (runner/session/run.cpp marks such an entry
// {"reference_failed": why}); else nothing. Such a check is skipped: nothing
// of it counts against the submission.
std::optional<std::string> reference_failure(const nlohmann::json& expected_entry);

// The expected output of shape `shape`'s first correctness case (null when it
// never came): a stress case's and a distribution probe's baseline, whose
// magnitude scales their tolerance (OutputChecks::check_against).
nlohmann::json first_case_output(int shape, const std::map<std::string, nlohmann::json>& expected);

// The expected-output job id of a correctness case: shape, case.
std::string correctness_case_id(int shape, int c);
// A correctness call as the stage lists it for the harness: {shape, case,
// inputs} with the reference's files, or {shape, case, seed} for a case both
// processes draw from its seed (the reference's {seed}).
nlohmann::json stage_call(int shape, int c, const nlohmann::json& inputs);
// The expected-output job id of a timed call's sample: shape, mode, call.
std::string timed_sample_id(int shape, const std::string& mode, int call);

// A timed call's sample on the shape's first case's input files, as the
// harness names a bench call's (`inputs` the very entries): its expected output
// is that case's, not computed again (alias_first_case_samples).
bool on_first_case_inputs(const nlohmann::json& sample, int shape,
                          const std::map<std::pair<int, int>, nlohmann::json>& inputs);
void alias_first_case_samples(const SubmissionReport& report,
                              const std::map<std::pair<int, int>, nlohmann::json>& inputs,
                              std::map<std::string, nlohmann::json>& expected);

// The jobs the reference computes expected outputs for: every correctness
// call that came back and every sampled timed call ([{id, shape, inputs}], or
// for a seeded sample [{id, shape, seed, mode, base}]: drawn again), but a
// sample on the first case's inputs (on_first_case_inputs).
nlohmann::json expected_output_jobs(const SubmissionReport& report,
                                    const std::map<std::pair<int, int>, nlohmann::json>& inputs,
                                    const std::filesystem::path& xfer);
// The jobs known before the submission's calls come back, for the reference
// to compute beside them (ReferenceSession::compute_beside): a job for every
// correctness case the reference drew, asked or not ...
nlohmann::json correctness_case_jobs(const std::map<std::pair<int, int>, nlohmann::json>& inputs);
// ... and, once a timing mode's summary is in (its calls are over), a job for
// each of its samples drawn from the runner's seeds. The same jobs, by id, as
// expected_output_jobs makes of them.
nlohmann::json seeded_sample_jobs(int shape, const std::string& mode, const nlohmann::json& samples,
                                  const std::map<std::pair<int, int>, nlohmann::json>& inputs);

// Checks every correctness case; fills result.correctness and returns, per
// shape, whether all its cases passed. The first failure goes to
// result.result_reason.
// `checks` makes the output checks (runner/judge/output_checks.h).
class OutputChecks;
std::map<int, bool> judge_correctness(const RunPlan& plan, const SubmissionReport& report,
                                      const std::map<std::string, nlohmann::json>& expected,
                                      const std::map<int, nlohmann::json>& habits, const nlohmann::json& shapes,
                                      OutputChecks& checks, RunResult& result);

}  // namespace kaudit::run
