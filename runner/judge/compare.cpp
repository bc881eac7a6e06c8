#include "runner/judge/compare.h"

#include "runner/judge/index_ties.h"
#include "runner/judge/output_checks.h"

#include <algorithm>

namespace kaudit::run {
namespace fs = std::filesystem;
using json = nlohmann::json;

bool valid_entry(const json& e, const fs::path& xfer, std::string_view folders) {
  if (!e.is_object()) return false;
  if (e.contains("value")) return !e.contains("file");
  if (!e.contains("file") || !e["file"].is_string()) return false;
  const std::string f = e["file"];
  const auto slash = f.find('/');
  if (slash == std::string::npos || f.find('/', slash + 1) != std::string::npos) return false;
  const std::string folder = f.substr(0, slash), name = f.substr(slash + 1);
  if (name.empty() || name == "." || name == "..") return false;
  bool allowed = false;
  for (std::size_t start = 0; start <= folders.size();) {
    const std::size_t end = std::min(folders.find('|', start), folders.size());
    allowed = allowed || folders.substr(start, end - start) == folder;
    start = end + 1;
  }
  std::error_code ec;
  return allowed && fs::is_regular_file(fs::symlink_status(xfer / f, ec));
}

bool valid_entries(const json& list, const fs::path& xfer, std::string_view folders) {
  if (!list.is_array()) return false;
  return std::all_of(list.begin(), list.end(), [&](const json& e) { return valid_entry(e, xfer, folders); });
}

// Largest finite |value| over the floating-point tensors of one call's outputs.
double magnitude(const std::vector<TensorFile>& tensors) {
  double m = 0;
  for (const auto& t : tensors)
    if (t.is_floating()) m = std::max(m, t.max_abs());
  return m;
}

// The tensors of an entry list (plain values are not tensors).
std::vector<TensorFile> read_output_files(const json& outputs, const fs::path& xfer) {
  std::vector<TensorFile> out;
  for (const auto& e : outputs)
    if (e.contains("file")) out.push_back(read_tensor_file(xfer / e["file"].get<std::string>()));
  return out;
}

namespace {

// An index output (top-k's, argsort's) whose differences are only tied
// values' indices in another order passes (index_ties.h), where a floating
// output of the same shape passed: its values say which positions are tied.
void forgive_tie_reordering(const std::vector<TensorFile>& outs, const std::vector<TensorFile>& exp,
                            std::vector<Comparison>& cmps, OutputCheck& c) {
  for (std::size_t k = 0; k < outs.size(); ++k) {
    if (cmps[k].ok || cmps[k].mismatches == 0 || exp[k].is_floating()) continue;
    for (std::size_t v = 0; v < outs.size(); ++v) {
      if (!cmps[v].ok || !exp[v].is_floating() || exp[v].shape != exp[k].shape) continue;
      if (const auto reordered = tie_reordered_elements(outs[k], exp[k], exp[v])) {
        c.tie_reordered += *reordered;
        cmps[k] = Comparison{};
        cmps[k].ok = true;
        cmps[k].checked = exp[k].numel();
        break;
      }
    }
  }
}

}  // namespace

// `stress_baseline`: for a numeric-stress case, the magnitude of the
// reference's output on the unscaled inputs. Rounding errors grow with the
// output, so the absolute tolerance grows by the output's growth (never
// shrinks); the relative tolerance stays. Such a case is skipped when the
// reference's own output is not finite. Scaled inputs also push elements
// onto decision edges (a saturated softmax, ties in a max) where any two
// correct kernels may differ: a stress case passes with at most
// `stress_allowance` of its elements outside the tolerance. In any check, an
// honest kernel's rounding differs from the reference's and lands a few
// elements of a large output just past the tolerance (one of 58.7M in an
// honest fp8 GEMM's timed call on the H200, off by 1.02x the bound): at most
// `near_miss` allows (a share, or a few in a mid-sized output), each within
// twice the tolerance, pass as `tolerated_mismatches`. A wrong kernel is wrong by more, or on more.
OutputCheck check_outputs(const json& got, const json& expected, const fs::path& xfer, const ToleranceTable& tolerances,
                          std::optional<double> stress_baseline, double stress_allowance, NearMissAllowance near_miss) {
  // The absolute tolerance applied: the largest over the outputs once they are read.
  OutputCheck c{"passed", "", 0, 0, 0, 0, tolerances.all ? tolerances.all->atol : 0};
  try {
    const std::vector<TensorFile> exp = read_output_files(expected, xfer);
    double atol_scale = 1;
    if (stress_baseline) {
      for (const auto& t : exp)
        if (!t.all_finite()) return {"skipped", "the reference's output is not finite at this scale", 0, 0, 0, 0, c.atol};
      if (const double m = magnitude(exp); *stress_baseline > 0 && m > *stress_baseline) atol_scale = m / *stress_baseline;
    }
    const std::vector<TensorFile> outs = read_output_files(got, xfer);
    if (outs.size() != exp.size()) {
      c.status = "failed";
      c.reason = "returned " + std::to_string(outs.size()) + " tensor(s) where the reference returns " +
                 std::to_string(exp.size());
      return c;
    }
    bool only_elements = true;  // every failure is elements outside the tolerance (not a shape or dtype)
    std::vector<Comparison> cmps;
    for (std::size_t k = 0; k < outs.size(); ++k) {
      Tolerance tol = tolerances.for_dtype(exp[k].dtype);
      tol.atol *= atol_scale;
      c.atol = k == 0 ? tol.atol : std::max(c.atol, tol.atol);
      cmps.push_back(compare_tensors(outs[k], exp[k], tol));
    }
    forgive_tie_reordering(outs, exp, cmps, c);
    for (std::size_t k = 0; k < outs.size(); ++k) {
      const Comparison& cmp = cmps[k];
      c.max_abs = std::max(c.max_abs, cmp.max_abs_error);
      c.max_rel = std::max(c.max_rel, cmp.max_rel_error);
      c.mismatches += cmp.mismatches;
      c.far_mismatches += cmp.far_mismatches;
      c.unwritten += cmp.poison_pattern;
      c.elements += cmp.checked;
      if (!cmp.ok && cmp.mismatches == 0) only_elements = false;
      if (!cmp.ok && c.status == "passed") {
        c.status = "failed";
        c.reason = (outs.size() > 1 ? "output " + std::to_string(k) + ": " : std::string()) + cmp.reason;
      }
    }
    const auto within = [&](double share) {
      return static_cast<double>(c.mismatches) <= share * static_cast<double>(c.elements);
    };
    if (c.status == "failed" && only_elements &&
        ((stress_baseline && within(stress_allowance)) || (c.far_mismatches == 0 && c.mismatches <= near_miss.allowed(c.elements)))) {
      c.status = "passed";
      c.reason.clear();
    }
  } catch (const std::exception& ex) {
    c.status = "failed";
    c.reason = std::string("unreadable output: ") + ex.what();
  }
  return c;
}

json output_check_json(const OutputCheck& c) {
  json j = {{"status", c.status}};
  if (!c.reason.empty()) j["reason"] = c.reason;
  if (c.status != "skipped") {
    j["max_abs_error"] = c.max_abs;
    j["max_rel_error"] = c.max_rel;
    j["mismatches"] = c.mismatches;
    if (c.status == "passed" && c.mismatches > 0) j["tolerated_mismatches"] = c.mismatches;
    if (c.unwritten > 0) j["unwritten_elements"] = c.unwritten;
    if (c.tie_reordered > 0) j["tie_reordered_elements"] = c.tie_reordered;
  }
  return j;
}

json first_case_output(int shape, const std::map<std::string, json>& expected) {
  const auto base = expected.find(correctness_case_id(shape, 0));
  return base == expected.end() ? json() : base->second;
}

std::optional<std::string> reference_failure(const json& expected_entry) {
  if (expected_entry.is_object() && expected_entry.contains("reference_failed") &&
      expected_entry["reference_failed"].is_string())
    return expected_entry["reference_failed"].get<std::string>();
  return std::nullopt;
}

std::string correctness_case_id(int shape, int c) { return "c_s" + std::to_string(shape) + "_c" + std::to_string(c); }

json stage_call(int shape, int c, const json& inputs) {
  return inputs.is_object() ? json{{"shape", shape}, {"case", c}, {"seed", inputs["seed"]}}
                            : json{{"shape", shape}, {"case", c}, {"inputs", inputs}};
}

std::string timed_sample_id(int shape, const std::string& mode, int call) {
  return "t_s" + std::to_string(shape) + "_" + mode + "_" + std::to_string(call);
}

namespace {

json case_job(const std::pair<int, int>& key, const std::map<std::pair<int, int>, json>& inputs) {
  const auto in = inputs.find(key);
  json job = {{"id", correctness_case_id(key.first, key.second)}, {"shape", key.first}};
  if (in != inputs.end() && in->second.is_object())
    job["seed"] = in->second["seed"];  // drawn again from its seed (a seeded case)
  else
    job["inputs"] = in == inputs.end() ? json() : in->second;
  return job;
}

// Checked by the submission session against the seed it sent: the
// reference draws the inputs again (rewrite keeps the first case's numbers,
// as the harness does).
json seeded_sample_job(int shape, const std::string& mode, const json& sample,
                       const std::map<std::pair<int, int>, json>& inputs) {
  const auto first = inputs.find({shape, 0});
  return {{"id", timed_sample_id(shape, mode, sample.value("call", 0))}, {"shape", shape}, {"seed", sample["seed"]},
          {"mode", mode}, {"base", first == inputs.end() ? json() : first->second}};
}

}  // namespace

bool on_first_case_inputs(const json& sample, int shape, const std::map<std::pair<int, int>, json>& inputs) {
  const auto first = inputs.find({shape, 0});
  return sample.is_object() && !sample.contains("seed") && sample.contains("inputs") && first != inputs.end() &&
         sample["inputs"] == first->second;
}

void alias_first_case_samples(const SubmissionReport& report, const std::map<std::pair<int, int>, json>& inputs,
                              std::map<std::string, json>& expected) {
  for (const auto& [key, t] : report.timings)
    for (const auto& s : t.value("samples", json::array()))
      if (on_first_case_inputs(s, key.first, inputs))
        if (const auto first = expected.find(correctness_case_id(key.first, 0)); first != expected.end())
          expected[timed_sample_id(key.first, key.second, s.value("call", 0))] = first->second;
}

json expected_output_jobs(const SubmissionReport& report, const std::map<std::pair<int, int>, json>& inputs,
                          const fs::path& xfer) {
  json jobs = json::array();
  for (const auto& [key, outs] : report.outputs) jobs.push_back(case_job(key, inputs));
  for (const auto& [key, t] : report.timings) {
    for (const auto& s : t.value("samples", json::array())) {
      if (s.contains("seed")) {
        jobs.push_back(seeded_sample_job(key.first, key.second, s, inputs));
      } else if (s.contains("inputs") && !on_first_case_inputs(s, key.first, inputs) &&
                 valid_entries(s["inputs"], xfer, "in|out")) {
        jobs.push_back({{"id", timed_sample_id(key.first, key.second, s.value("call", 0))},
                        {"shape", key.first},
                        {"inputs", s["inputs"]}});
      }
    }
  }
  return jobs;
}

json correctness_case_jobs(const std::map<std::pair<int, int>, json>& inputs) {
  json jobs = json::array();
  for (const auto& [key, in] : inputs) jobs.push_back(case_job(key, inputs));
  return jobs;
}

json seeded_sample_jobs(int shape, const std::string& mode, const json& samples,
                        const std::map<std::pair<int, int>, json>& inputs) {
  json jobs = json::array();
  for (const auto& s : samples)
    if (s.is_object() && s.contains("seed")) jobs.push_back(seeded_sample_job(shape, mode, s, inputs));
  return jobs;
}

namespace {

// A bounds case whose reference output is not finite where the first seed
// case's is: the range's end is degenerate for the problem (a length of 0
// whose mean is 0/0), and no kernel passes the grader's own check there, the
// reference's NaN included. A kernel that differs from the reference only
// there is not wrong, so those elements are not checked (as a stress case
// whose reference overflows is skipped); every other element still is.
bool reference_degenerate_at_bounds(const OutputChecks& checks, const json& bounds_expected, int shape,
                                    const std::map<std::string, json>& expected) {
  return !checks.all_finite(bounds_expected) && checks.all_finite(first_case_output(shape, expected));
}

// An output check as a case records it: status and reason, the poison
// left, and the numbers.
void record_check(const OutputCheck& chk, evidence::CaseCheck& c) {
  json numbers = output_check_json(chk);
  for (const char* key : {"status", "reason", "unwritten_elements"}) numbers.erase(key);
  c.status = chk.status;
  c.reason = chk.reason;
  if (chk.status != "skipped") c.unwritten_elements = chk.unwritten;
  c.check.update(numbers);
}

// One correctness case; `failure` gets the reason when it failed.
evidence::CaseCheck judge_case(const RunPlan& plan, const SubmissionReport& report,
                               const std::map<std::string, json>& expected, OutputChecks& checks, int i, int j,
                               std::string& failure) {
  const CorrectnessCase& cc = plan.cases[static_cast<std::size_t>(j)];
  evidence::CaseCheck c;
  c.index = j, c.seed = cc.seed, c.scale = cc.scale, c.kind = cc.kind;
  const auto got = report.outputs.find({i, j});
  const auto want = expected.find(correctness_case_id(i, j));
  std::string why_failed;
  if (got == report.outputs.end() || want == expected.end()) {
    c.status = "not run";
  } else if (want->second.is_object() && want->second.contains("unverifiable")) {  // run.cpp, hold_seeded_inputs
    why_failed = want->second["unverifiable"].get<std::string>();
    c.status = "failed", c.reason = why_failed;
  } else if (const auto why = reference_failure(want->second)) {  // a seed case's is the run's error
    c.status = "skipped", c.reason = *why;
  } else {
    const bool stress = cc.kind == "stress";
    const OutputCheck chk = stress ? checks.check_against(got->second, want->second, correctness_case_id(i, 0),
                                                          first_case_output(i, expected), plan.stress_allowance)
                                   : checks.check(got->second, want->second, plan.stress_allowance);
    record_check(chk, c);
    if (stress && chk.status != "skipped") c.check["atol"] = chk.atol;
    if (chk.status == "failed" && cc.kind == "bounds" &&
        reference_degenerate_at_bounds(checks, want->second, i, expected)) {
      const OutputCheck finite = checks.check_excusing_non_finite(got->second, want->second);
      record_check(finite, c);
      c.check["reference_non_finite_excused"] = true;
      if (finite.status == "failed") why_failed = finite.reason;
    } else if (chk.status == "failed") {
      why_failed = chk.reason;
    }
  }
  if (!why_failed.empty())
    failure = "shape " + std::to_string(i) + ", " + cc.kind + " case " + std::to_string(j) +
              (cc.kind == "bounds" ? " (seed " + std::to_string(cc.seed) +
                                         ", its integer draws at the ends of their range, values the problem's "
                                         "generator can draw)"
                                   : "") +
              ": " + why_failed;
  if (const auto m = report.mutated.find({i, j}); m != report.mutated.end())
    c.inputs_mutated = m->second;
  c.inputs_from = report.case_digests.count({i, j}) ? "seed" : "file";
  return c;
}

}  // namespace

std::map<int, bool> judge_correctness(const RunPlan& plan, const SubmissionReport& report,
                                      const std::map<std::string, json>& expected, const std::map<int, json>& habits,
                                      const json& shapes, OutputChecks& checks, RunResult& result) {
  std::map<int, bool> shape_correct;
  auto note_failure = [&](const std::string& why) {
    if (result.result_reason.empty()) result.result_reason = why;
  };
  for (int i = 0; i < static_cast<int>(shapes.size()); ++i) {
    evidence::ShapeCorrectness shape_doc;
    shape_doc.shape_index = i;
    shape_doc.shape = shapes[i];
    bool ok = true;
    for (int j = 0; j < static_cast<int>(plan.cases.size()); ++j) {
      std::string failure;
      shape_doc.cases.push_back(judge_case(plan, report, expected, checks, i, j, failure));
      if (!failure.empty()) {
        ok = false;
        note_failure(failure);
      }
    }
    const auto counts_it = report.correctness_counts.find(i);
    const json counts =
        counts_it == report.correctness_counts.end() ? json() : counts_it->second.value("counts", json::object());
    if (counts.is_object() && counts.value("not_tensor", 0) > 0) {
      ok = false;
      note_failure("shape " + std::to_string(i) + ": an output is not a tensor");
    }
    if (const auto so = report.stream_order.find(i); so != report.stream_order.end()) shape_doc.stream_order = so->second;
    if (const auto h = habits.find(i); h != habits.end()) shape_doc.reference_habits = h->second;
    shape_doc.passed = ok;
    shape_correct[i] = ok;
    result.all_correct = result.all_correct && ok;
    result.correctness.push_back(std::move(shape_doc));
  }
  return shape_correct;
}

}  // namespace kaudit::run

