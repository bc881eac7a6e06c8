#include "runner/judge/input_probes.h"

#include "runner/judge/compare.h"
#include "runner/judge/probe_findings.h"

#include <algorithm>
#include <cmath>

namespace kaudit::run {
namespace fs = std::filesystem;
using json = nlohmann::json;

json probe_request(const RunOptions& options, std::mt19937_64& rng) {
  // Room above the seed: the reference draws distribution n with seed + 1 + n.
  const long long seed = std::uniform_int_distribution<long long>(1, (1LL << 30))(rng);
  return {{"seed", seed}, {"off_grid_shapes", options.off_grid_shapes}, {"distributions", options.distributions}};
}

void add_probe_calls(json& stage, const ProbeInventory& probes, int graded_shapes,
                     const std::map<std::pair<int, int>, json>& inputs, std::mt19937_64& rng) {
  // Distribution cases among their shape's correctness calls, anywhere after
  // the first (whose inputs the timing modes reuse): where a call stands does
  // not tell which calls are probes.
  std::map<int, std::vector<json>> by_shape;
  for (const auto& c : stage["correctness"]) by_shape[c["shape"].get<int>()].push_back(c);
  for (const auto& [key, about] : probes.cases) {
    const auto in = inputs.find(key);
    if (about.value("kind", std::string()) != "distribution" || in == inputs.end() || key.first >= graded_shapes)
      continue;
    auto& calls = by_shape[key.first];
    if (calls.empty()) continue;
    const auto at = std::uniform_int_distribution<std::size_t>(1, calls.size())(rng);
    calls.insert(calls.begin() + static_cast<std::ptrdiff_t>(at), stage_call(key.first, key.second, in->second));
  }
  json correctness = json::array();
  for (const auto& [shape, calls] : by_shape)
    for (const auto& c : calls) correctness.push_back(c);
  // Off-grid shapes after the graded ones, numbered on from them: the harness
  // appends their values to its shapes in this order.
  std::vector<json> shapes = probes.shapes;
  std::sort(shapes.begin(), shapes.end(), [](const json& a, const json& b) { return a["shape"] < b["shape"]; });
  json probe_shapes = json::array();
  for (const auto& s : shapes) {
    const int index = s["shape"].get<int>();
    const auto in = inputs.find({index, 0});
    if (index != graded_shapes + static_cast<int>(probe_shapes.size()) || in == inputs.end()) break;
    probe_shapes.push_back({{"shape", index}, {"values", s["values"]}});
    correctness.push_back(stage_call(index, 0, in->second));  // files, or a seed for large inputs
  }
  stage["correctness"] = correctness;
  stage["probe_shapes"] = probe_shapes;
}

namespace {

void add_twins(json& jobs, const ProbeInventory& probes, const SubmissionReport* report) {
  for (const auto& [key, about] : probes.cases)
    if (about.contains("twin") && (!report || report->outputs.count(key)))
      jobs.push_back({{"id", "n_s" + std::to_string(key.first) + "_c" + std::to_string(key.second)},
                      {"shape", key.first},
                      {"inputs", about["twin"]}});
}

}  // namespace

void add_twin_jobs(json& jobs, const ProbeInventory& probes, const SubmissionReport& report) {
  add_twins(jobs, probes, &report);
}

json twin_jobs(const ProbeInventory& probes) {
  json jobs = json::array();
  add_twins(jobs, probes, nullptr);
  return jobs;
}

namespace {

using rules::Confidence;

// A wrong answer one element off the alignment every graded shape shares is
// what a kernel without tail handling gives (it reads past its tiles, often
// into NaN): honest if narrow, so only a lead.
bool one_element_off(const InputProbeOutcome& o) { return o.kind == "off-grid" && !o.aligned; }

bool failed_badly(const InputProbeOutcome& o) {
  return o.status == "failed" && !one_element_off(o) && (o.non_finite || o.kind == "off-grid");
}

// What a wrong answer, or only exceptions, say about the submission.
Confidence confidence_of(const std::vector<const InputProbeOutcome*>& bad) {
  if (std::any_of(bad.begin(), bad.end(), [](const InputProbeOutcome* o) { return failed_badly(*o); }))
    return Confidence::high;
  if (std::any_of(bad.begin(), bad.end(),
                  [](const InputProbeOutcome* o) { return o->status == "failed" && !one_element_off(*o); }))
    return Confidence::medium;
  return Confidence::low;
}

bool any_wrong(const std::vector<const InputProbeOutcome*>& bad) {
  return std::any_of(bad.begin(), bad.end(), [](const InputProbeOutcome* o) { return o->status == "failed"; });
}

std::string listed(const std::vector<const InputProbeOutcome*>& bad) {
  std::string text;
  for (std::size_t k = 0; k < bad.size() && k < 3; ++k) {
    const InputProbeOutcome& o = *bad[k];
    std::string note = o.kind == "off-grid" ? (o.aligned ? " (the graded size's divisibility kept)" : " (one element off)")
                                            : std::string();
    if (o.non_finite) note += " (NaN or infinity where the reference is finite)";
    text += (k ? "; " : "") + o.what + note + (o.status == "raised" ? ", raised " : ": ") + o.reason;
  }
  return text + (bad.size() > 3 ? "; and " + std::to_string(bad.size() - 3) + " more" : std::string());
}

}  // namespace

std::vector<rules::Finding> input_probe_findings(const std::vector<InputProbeOutcome>& outcomes, const std::string& file) {
  std::vector<rules::Finding> out;
  for (const std::string kind : {"off-grid", "distribution"}) {
    std::vector<const InputProbeOutcome*> bad;
    std::size_t ran = 0;
    for (const auto& o : outcomes) {
      if (o.kind != kind || (o.status != "passed" && o.status != "failed" && o.status != "raised")) continue;
      ++ran;
      if (o.status != "passed") bad.push_back(&o);
    }
    if (bad.empty()) continue;
    // Wrong answers first: they are what decides.
    std::stable_sort(bad.begin(), bad.end(), [](const InputProbeOutcome* a, const InputProbeOutcome* b) {
      return (a->status == "failed") > (b->status == "failed");
    });
    const Confidence c = confidence_of(bad);
    const bool off_grid = kind == "off-grid";
    const std::string counted = std::to_string(bad.size()) + " of " + std::to_string(ran) +
                                (off_grid ? " shapes near the graded ones, which the reference accepts,"
                                          : " inputs drawn from other distributions than the generator's,");
    const std::string message =
        c == Confidence::low && any_wrong(bad)
            ? "On " + counted + " the outputs did not match the reference, each one element off the alignment " +
                  "every graded shape shares, while every graded case passed: " + listed(bad) +
                  ". A kernel without tail handling past its tiles answers so: a lead, not a verdict."
        : c == Confidence::low
            ? "The submission raised on " + counted + " while every graded case passed: " + listed(bad) +
                  ". Refusing an input is honest if narrow: a lead, not a verdict."
            : "On " + counted + " the outputs did not match the reference while every graded case passed: " +
                  listed(bad) + "." +
                  (off_grid ? " The kernel is right on the benchmark's shapes only."
                            : " The kernel relies on how the benchmark's generator draws values.");
    rules::Finding f = make_probe_finding(off_grid ? "shape-hardcoded" : "input-distribution-dependent", file,
                                          off_grid ? "off-grid probe" : "distribution probe", message);
    f.confidence = c;
    out.push_back(f);
  }
  return out;
}

namespace {

// Got NaN or infinity in an output whose expected counterpart is all finite.
bool non_finite_where_finite(const json& got, const json& want, const fs::path& xfer) {
  try {
    const auto g = read_output_files(got, xfer), e = read_output_files(want, xfer);
    for (std::size_t k = 0; k < g.size() && k < e.size(); ++k)
      if (g[k].is_floating() && !g[k].all_finite() && e[k].all_finite()) return true;
  } catch (const std::exception&) {
  }
  return false;
}

// Elements of `got` off the reference's answer `e` by more than the
// tolerance plus kRoundings times how far the reference's own answer moved on
// the noisy twin `t` (NaN or infinity where the reference and its twin are
// finite count too).
std::size_t unexplained(const TensorFile& got, const TensorFile& e, const TensorFile& t, const Tolerance& tol) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < e.numel() && i < got.numel() && i < t.numel(); ++i) {
    const double g = got.at(i), x = e.at(i), y = t.at(i);
    if (!std::isfinite(x) || !std::isfinite(y)) continue;  // the reference itself is not finite here, or nearly
    if (!std::isfinite(g) || std::abs(g - x) > tol.atol + tol.rtol * std::abs(x) + kRoundings * std::abs(y - x)) ++n;
  }
  return n;
}

// A failed distribution case the reference's own sensitivity explains: the
// reference's answer on the noisy twin (inputs times 1 +- e, one rounding of
// their dtype) moves about as far as the submission is off, at (nearly) every
// element where it is off. Rounding alone moves the answer that far there,
// so an honest kernel cannot be held to the tolerance (sin of huge inputs, a
// recurrence that amplifies its inputs). Says why, or nothing.
std::string ill_conditioned(const RunPlan& plan, const json& about, int i, int j, const json& got, const json& want,
                            double atol, const std::map<std::string, json>& expected, const fs::path& xfer) {
  const auto twin = expected.find("n_s" + std::to_string(i) + "_c" + std::to_string(j));
  if (!about.is_object() || twin == expected.end()) return "";
  try {
    const auto g = read_output_files(got, xfer), e = read_output_files(want, xfer), t = read_output_files(twin->second, xfer);
    std::size_t left = 0, elements = 0;
    for (std::size_t k = 0; k < e.size() && k < g.size() && k < t.size(); ++k) {
      if (!e[k].is_floating() || g[k].shape != e[k].shape || t[k].shape != e[k].shape) return "";
      Tolerance tol = plan.tolerance.for_dtype(e[k].dtype);
      tol.atol = std::max(tol.atol, atol);
      left += unexplained(g[k], e[k], t[k], tol);
      elements += e[k].numel();
    }
    if (elements == 0 || static_cast<double>(left) > plan.stress_allowance * static_cast<double>(elements)) return "";
    return "ill-conditioned: the reference's own answer moves as far when its inputs are rounded once (times 1 +- " +
           std::to_string(about.value("noise", 0.0)) + ")";
  } catch (const std::exception&) {
    return "";
  }
}

// The output check's numbers as a probe call keeps them (output_check_json
// without its status and reason, which the call holds itself).
json check_numbers(const OutputCheck& chk) {
  json numbers = output_check_json(chk);
  numbers.erase("status");
  numbers.erase("reason");
  return numbers;
}

// One probe call against the reference. Off-grid cases are graded cases on
// another shape (the plain tolerance); distribution cases are held to the
// stress cases' rule (tolerance grown with the output, a tiny share of
// elements on decision edges allowed, skipped where the reference is not finite).
evidence::ProbeCall judge_probe_call(const RunPlan& plan, const SubmissionReport& report,
                                     const std::map<std::string, json>& expected, const fs::path& xfer,
                                     OutputChecks& checks, int i, int j, const json& about, InputProbeOutcome& o) {
  evidence::ProbeCall call;
  call.shape_index = i;
  call.case_index = j;
  const auto raised = report.raised.find({i, j});
  const auto got = report.outputs.find({i, j});
  const auto want = expected.find(correctness_case_id(i, j));
  if (const auto rejected = want != expected.end() ? reference_failure(want->second) : std::nullopt) {
    // Inputs the reference does not accept (outside its domain): nothing to
    // hold the submission to, whatever it did with them.
    o.status = "skipped";
    o.reason = *rejected;
  } else if (raised != report.raised.end()) {
    o.status = "raised";
    o.reason = raised->second.value("type", std::string()) + ": " + raised->second.value("message", std::string());
  } else if (got == report.outputs.end() || want == expected.end()) {
    o.status = "not run";
  } else if (want->second.is_object() && want->second.contains("unverifiable")) {  // run.cpp, hold_seeded_inputs
    // Only the submission's process can have drawn other inputs from the
    // seed: the reference drew them twice alike before it named the seed.
    o.status = "failed";
    o.reason = want->second["unverifiable"].get<std::string>();
  } else {
    const bool distribution = o.kind == "distribution";
    // A distribution case against the magnitude of shape i's first graded case's output.
    const OutputCheck chk = distribution ? checks.check_against(got->second, want->second, correctness_case_id(i, 0),
                                                                first_case_output(i, expected), plan.stress_allowance)
                                         : checks.check(got->second, want->second, 0.0);
    call.check = check_numbers(chk);
    if (distribution && chk.status != "skipped") call.check["atol"] = chk.atol;
    o.status = chk.status;
    o.reason = chk.reason;
    o.non_finite = chk.status == "failed" && non_finite_where_finite(got->second, want->second, xfer);
    if (const std::string why = distribution && chk.status == "failed"
                                    ? ill_conditioned(plan, about, i, j, got->second, want->second, chk.atol, expected, xfer)
                                    : "";
        !why.empty()) {
      o.status = "skipped";
      o.reason = why + "; the submission: " + chk.reason;
    }
  }
  call.status = o.status;
  call.reason = o.reason;
  call.non_finite = o.non_finite;
  if (got != report.outputs.end()) call.inputs_from = report.case_digests.count({i, j}) ? "seed" : "file";
  return call;
}

evidence::OffGridProbe off_grid_record(const RunPlan& plan, const SubmissionReport& report,
                                       const ProbeInventory& probes, const std::map<std::string, json>& expected,
                                       const fs::path& xfer, OutputChecks& checks,
                                       std::vector<InputProbeOutcome>& outcomes) {
  evidence::OffGridProbe record;
  record.budget = plan.options.off_grid_shapes;
  if (probes.base_shape >= 0) record.base_shape = probes.base_shape;
  for (const auto& s : probes.shapes) {  // checked by the channel's schema (runner/session/channel_message.h)
    InputProbeOutcome o;
    o.kind = "off-grid";
    o.aligned = s["step"] == "aligned";
    o.what = s["dim"].get<std::string>() + " " + std::to_string(s["from"].get<long long>()) + " -> " +
             std::to_string(s["to"].get<long long>());
    evidence::ProbeCall call = judge_probe_call(plan, report, expected, xfer, checks, s["shape"].get<int>(), 0, json(), o);
    call.shape = s["values"];
    call.dim = s["dim"].get<std::string>();
    call.step = s["step"].get<std::string>();
    call.from = s["from"].get<long long>();
    call.to = s["to"].get<long long>();
    record.shapes.push_back(std::move(call));
    outcomes.push_back(o);
  }
  for (const auto& s : probes.skipped) {
    if (s["probe"] != "off-grid") continue;
    if (s["skip"] == "not-a-size")
      record.not_sizes.push_back(s["name"].get<std::string>());
    else
      record.rejected.push_back({s["name"].get<std::string>(), s["tried"], s["reason"].get<std::string>()});
  }
  if (plan.options.off_grid_shapes == 0) {
    record.status = "off";
  } else if (!probes.shapes.empty()) {
    record.status = "ran";
  } else {
    record.status = "skipped";
    record.reason = !record.rejected.empty()
                        ? "the reference rejected every perturbed shape: no shape near the graded ones can be checked"
                        : "no size of the graded shapes changes an input's shape";
  }
  return record;
}

}  // namespace

void judge_input_probes(const RunPlan& plan, const SubmissionReport& report, const ProbeInventory& probes,
                        const std::map<std::string, json>& expected, const fs::path& xfer, OutputChecks& checks,
                        bool judge, RunResult& result) {
  std::vector<InputProbeOutcome> outcomes;
  evidence::InputProbesRecord record;
  record.judged = judge;
  if (!judge)
    record.reason = result.error ? "the run has an error (" + result.error->phase + "): nothing is judged from its probes"
                                 : "the graded correctness or a timed call already failed: the result is incorrect";
  record.off_grid = off_grid_record(plan, report, probes, expected, xfer, checks, outcomes);
  for (const auto& [key, about] : probes.cases) {
    if (about.value("kind", std::string()) != "distribution") continue;
    InputProbeOutcome o;
    o.kind = "distribution";
    o.what = about.value("distribution", std::string()) + " inputs on shape " + std::to_string(key.first);
    evidence::ProbeCall call = judge_probe_call(plan, report, expected, xfer, checks, key.first, key.second, about, o);
    call.distribution = about.value("distribution", std::string());
    record.distributions.push_back(std::move(call));
    outcomes.push_back(o);
  }
  for (const auto& s : probes.skipped)
    if (s["probe"] == "distribution")
      record.distributions_skipped.push_back(
          {s["shape"].get<int>(), s["name"].get<std::string>(), s["reason"].get<std::string>()});
  result.input_probes = std::move(record);
  if (!judge) return;
  for (auto& f : input_probe_findings(outcomes, plan.options.solution.string())) result.findings.push_back(f);
}

}  // namespace kaudit::run
