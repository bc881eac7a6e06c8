#include "runner/judge/judge_timing.h"

#include "runner/judge/compare.h"
#include "runner/judge/probe_findings.h"
#include "runner/plan/throughput.h"
#include "runner/judge/verify_timing.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace kaudit::run {
namespace fs = std::filesystem;
using json = nlohmann::json;
using evidence::ModeTiming;
using evidence::ShapeCorrectness;
using evidence::ShapeTiming;
using evidence::timing_stats;

namespace {

// Shape `i`'s timing in `mode`: statistics, the sampled calls checked, the
// harness's output checks; `evidence` gets what the probes read.
ModeTiming mode_timing(const RunPlan& plan, const SubmissionReport& report, const json& t,
                   const std::map<std::string, json>& expected, const fs::path& xfer, int i, const std::string& mode,
                   const json& perf, OutputChecks& checks, ModeEvidence& evidence, RunResult& result) {
  std::vector<double> times;
  for (const auto& x : t.value("times_ms", json::array()))
    if (x.is_number()) times.push_back(x.get<double>());
  ModeTiming m;
  m.stats = timing_stats(times);
  bool samples_ok = true;
  double wrong_share = 0;
  for (const auto& s : t.value("samples", json::array())) {
    const int call = s.value("call", 0);
    const auto want = expected.find(timed_sample_id(i, mode, call));
    json sd = {{"call", call}, {"inputs_from", s.contains("seed") ? "seed" : "file"}};
    const bool unverifiable = want != expected.end() && want->second.is_object() && want->second.contains("unverifiable");
    const bool outputs_valid = valid_entries(s.value("outputs", json()), xfer, "out");
    if (const auto why = outputs_valid && want != expected.end() ? reference_failure(want->second) : std::nullopt) {
      // The reference gave no answer (the run's error says why): unchecked,
      // so never a pass, and no evidence against the submission either.
      sd["status"] = "skipped";
      sd["reason"] = *why;
      result.all_correct = false;
    } else if (!outputs_valid || want == expected.end() || unverifiable) {
      // A sample the runner chose must be checked: one that cannot be is a failure, never a pass.
      sd["status"] = "failed";
      sd["reason"] = unverifiable ? want->second["unverifiable"].get<std::string>()
                                  : "the sampled call's output could not be checked against the reference";
      if (unverifiable && result.result_reason.empty())
        result.result_reason = "shape " + std::to_string(i) + ", timed " + mode + " call " + std::to_string(call) +
                               ": " + sd["reason"].get<std::string>();
      samples_ok = false;
      wrong_share = 1;
    } else {
      const OutputCheck chk = checks.check(s["outputs"], want->second, 0);
      sd.update(output_check_json(chk));
      if (chk.status == "failed") {
        samples_ok = false;
        // No element counted wrong (a wrong shape or dtype): wrong everywhere.
        wrong_share = std::max(wrong_share, chk.mismatches == 0 || chk.elements == 0
                                                ? 1.0
                                                : static_cast<double>(chk.mismatches) / static_cast<double>(chk.elements));
        if (result.result_reason.empty())
          result.result_reason =
              "shape " + std::to_string(i) + ", timed " + mode + " call " + std::to_string(call) + ": " + chk.reason;
      }
    }
    m.samples.push_back(sd);
  }
  m.samples_passed = samples_ok;
  m.output_checks = t.value("counts", json::object());
  m.output_types = t.value("types", json::array());
  if (mode == "rewrite") m.version_counters_moved = t.value("versions_moved", 0);
  if (m.stats) m.throughput = throughput(perf, m.stats->median_ms);
  if (const auto calls = report.timed_calls.find({i, mode}); calls != report.timed_calls.end()) {
    const auto nulls = report.null_calls.find({i, mode});
    const ClockCheck clock = check_against_clock(calls->second, plan.cpu ? kClockSlackCpuMs : kClockSlackMs,
                                                 nulls == report.null_calls.end() ? std::vector<TimedCall>{} : nulls->second);
    m.runner_clock = clock.to_json();
    if (clock.forged)
      result.findings.push_back(make_probe_finding("timing-forged", plan.options.solution.string(),
                                                   "shape " + std::to_string(i) + ", " + mode,
                                                   "Shape " + std::to_string(i) + ", mode " + mode + ": " + *clock.forged + "."));
  }
  const double p10 = m.stats ? m.stats->p10_ms : 0.0;
  evidence = {samples_ok, m.stats ? m.stats->median_ms : 0.0, m.stats ? m.stats->min_ms : 0.0,
              t.value("counts", json::object()), samples_ok ? 1.0 : wrong_share,
              p10 > 0 ? m.stats->p90_ms / p10 : 1.0};
  result.all_correct = result.all_correct && samples_ok;
  return m;
}

// What the probes read of shape `i` besides its timing modes.
void fill_shape_evidence(const RunPlan& plan, const SubmissionReport& report, const std::map<int, json>& habits,
                         bool correct, const ShapeCorrectness& correctness, int i,
                         ShapeEvidence& evidence) {
  evidence.shape = i;
  evidence.correctness_passed = correct;
  const auto counts = report.correctness_counts.find(i);
  evidence.correctness_counts =
      counts != report.correctness_counts.end() ? counts->second.value("counts", json::object()) : json::object();
  for (const auto& c : correctness.cases)
    if (c.kind == "seed") evidence.seed_cases_passed.push_back(c.passed());
  if (plan.options.poison)
    for (const auto& c : correctness.cases)
      if (c.unwritten_elements > 0) evidence.unwritten_cases.emplace_back(c.index, c.unwritten_elements);
  const auto so = report.stream_order.find(i);
  evidence.outputs_not_ready = so != report.stream_order.end() ? so->second.value("differing", 0) : 0;
  // Inputs the reference itself changes, and outputs in an input's storage
  // when the reference returns one too, are the problem's, not offences.
  const auto h = habits.find(i);
  const json habit = h != habits.end() ? h->second : json::object();
  const auto reference_changes = habit.value("changes_inputs", json::array()).get<std::set<int>>();
  for (const auto& [key, ks] : report.mutated)
    if (key.first == i && std::any_of(ks.begin(), ks.end(), [&](int k) { return !reference_changes.count(k); }))
      evidence.mutated_cases.push_back(key.second);
  evidence.reference_aliases_input = habit.value("aliases_input", false);
}

}  // namespace

void judge_timing(const RunPlan& plan, const SubmissionReport& report, const std::map<std::string, json>& expected,
                  const std::map<int, json>& habits, const std::map<int, bool>& shape_correct, const json& shapes,
                  const std::optional<Hardware>& hardware, const fs::path& xfer, OutputChecks& checks,
                  RunResult& result) {
  for (int i = 0; i < static_cast<int>(shapes.size()); ++i) {
    ShapeEvidence evidence;
    ShapeTiming timing;
    timing.shape_index = i;
    timing.shape = shapes[i];
    std::map<std::string, double> vars;
    for (const auto& [k, v] : shapes[i].items())
      if (v.is_number()) vars[k] = v.get<double>();
    const json perf = throughput_basis(plan.problem.yaml, vars, hardware, plan.options.peak_basis);
    for (const auto& mode : plan.options.modes) {
      const auto t = report.timings.find({i, mode});
      if (t == report.timings.end()) continue;
      timing.modes[mode] = mode_timing(plan, report, t->second, expected, xfer, i, mode, perf, checks,
                                   evidence.modes[mode], result);
    }
    timing.set_fresh_over_bench();
    timing.work = perf;
    result.timing.push_back(std::move(timing));
    const auto correct = shape_correct.find(i);
    fill_shape_evidence(plan, report, habits, correct != shape_correct.end() && correct->second,
                        result.correctness[static_cast<std::size_t>(i)], i, evidence);
    for (auto& f : probe_findings(evidence, plan.options.solution.string(),
                                 {plan.fresh_over_bench, plan.pack.thresholds.fresh_gap_ms}))
      result.findings.push_back(f);
  }
}

}  // namespace kaudit::run
