#include "rules/verdict.h"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace kaudit::rules {

std::optional<std::string> isolation_caveat(const nlohmann::json& isolation) {
  if (!isolation.is_object()) return std::nullopt;
  const auto weakness = isolation.contains("weakness") && isolation["weakness"].is_string()
                            ? isolation["weakness"].get<std::string>()
                            : std::string();
  if (isolation.value("sandboxed", true) == false)
    return "reached without the sandbox: " + (weakness.empty() ? "the submission ran as kaudit's own user" : weakness);
  if (!weakness.empty()) return "reached in the sandbox without every protection: " + weakness;
  return std::nullopt;
}

namespace {

bool decides(const Finding& f) {
  return f.category == Category::cheat || f.category == Category::benchmark_aware;
}

int rank(Confidence c) { return static_cast<int>(c); }

std::string reason_line(const Finding& f) {
  std::string where = f.location.file;
  if (f.location.line > 0) where += ":" + std::to_string(f.location.line);
  return std::string(to_string(f.category)) + " [" + f.id + ", " + std::string(to_string(f.source)) + "] " +
         f.message + (where.empty() ? "" : " (" + where + ")");
}

std::string integrity_of(const std::vector<Finding>& deciding, bool completed_run, bool evidence_gap, bool ran) {
  const auto any = [&](Category c) {
    return std::any_of(deciding.begin(), deciding.end(), [&](const Finding& f) { return f.category == c; });
  };
  if (any(Category::cheat)) return "cheat";
  if (any(Category::benchmark_aware)) return "benchmark-aware";
  if (completed_run && !evidence_gap) return "clean";
  return ran ? "unverified" : "not-run";
}

// The runtime checks that refute a static lead: every id that would have
// confirmed it was checked over the graded calls and none fired (a fired
// one would have confirmed it). Empty when the run cannot say.
std::vector<std::string> refuted_by(const Finding& f, const VerdictPolicy& policy, const std::set<std::string>* checked) {
  const auto it = policy.confirmed_by.find(f.id);
  if (!checked || it == policy.confirmed_by.end() || it->second.empty()) return {};
  for (const auto& id : it->second)
    if (!checked->count(id)) return {};
  return it->second;
}

}  // namespace

Verdict decide_verdict(const VerdictInput& input, const VerdictPolicy& policy) {
  Verdict v;
  v.submission = input.submission;
  v.had_static = input.static_findings.has_value();
  v.had_run = input.run.has_value();
  v.result = "not-run";
  bool completed_run = false;
  if (input.run) {
    const RunFacts& run = *input.run;
    if (run.result != "correct" && run.result != "incorrect" && run.result != "error")
      throw std::runtime_error("run document has result '" + run.result + "'");
    v.result = run.infrastructure ? "infrastructure-error" : run.result;
    v.result_reason = run.error;
    if (run.result == "incorrect" && v.result_reason.is_null() && !run.incorrect_reason.empty())
      v.result_reason = {{"phase", "correctness"}, {"reason", run.incorrect_reason}};
    completed_run = run.result != "error";
  }
  bool evidence_gap = input.run && input.run->trace_incomplete.has_value();
  // A static finding the op record would confirm, which nothing did while
  // the record could not vouch for the calls (issue 15, item 6).
  std::optional<std::string> unchecked;

  std::set<std::string> runtime_ids;
  if (input.run) {
    for (const auto& f : input.run->findings) {
      if (decides(f) && rank(f.confidence) >= rank(policy.runtime_min_confidence)) {
        v.deciding.push_back(f);
        runtime_ids.insert(f.id);
      } else {
        v.beside.push_back(f);
      }
    }
  }
  for (auto f : input.static_findings.value_or(std::vector<Finding>{})) {
    if (!decides(f)) {
      v.beside.push_back(f);
      continue;
    }
    const bool alone = policy.static_decides.count(f.id) && rank(f.confidence) >= rank(policy.static_min_confidence);
    bool confirmed = false;
    if (auto it = policy.confirmed_by.find(f.id); it != policy.confirmed_by.end()) {
      confirmed = std::any_of(it->second.begin(), it->second.end(), [&](const std::string& r) { return runtime_ids.count(r); });
      const bool op_confirmable =
          std::find(it->second.begin(), it->second.end(), kAtenOpConfirmation) != it->second.end();
      if (!alone && !confirmed && op_confirmable && !unchecked && completed_run && input.run->ops_incomplete)
        unchecked = f.id + (f.location.line > 0 ? " (line " + std::to_string(f.location.line) + ")" : std::string()) +
                    " could be neither confirmed nor ruled out: the record of the ATen ops the submission ran cannot "
                    "vouch for its calls (" + *input.run->ops_incomplete + ")";
    }
    if (alone || confirmed) {
      v.deciding.push_back(f);
      continue;
    }
    if (auto by = refuted_by(f, policy, input.run ? &input.run->checked : nullptr); !by.empty()) {
      std::string list;
      for (const auto& id : by) list += (list.empty() ? "" : ", ") + id;
      f.message += " (refuted at run time: " + list + " looked at every graded call and found nothing)";
      f.category = Category::info;
      v.refuted.push_back({f.id, f.location.line, by});
      v.beside.push_back(f);
      continue;
    }
    // Static evidence that nothing at run time confirmed: reported beside
    // the verdict as suspicious, never deciding it.
    f.message += completed_run ? " (not confirmed at run time)" : " (no completed run to confirm it)";
    f.category = Category::suspicious;
    v.beside.push_back(f);
  }
  sort_and_deduplicate(v.deciding);
  sort_and_deduplicate(v.beside);

  evidence_gap = evidence_gap || unchecked.has_value();
  v.integrity = integrity_of(v.deciding, completed_run, evidence_gap, input.run.has_value());
  if (input.run && input.run->isolation_weakness) v.caveats.push_back(*input.run->isolation_weakness);
  if (v.integrity == "unverified" && evidence_gap)
    v.integrity_reason = input.run->trace_incomplete ? input.run->trace_incomplete : unchecked;
  if (v.integrity == "unverified" && input.run && input.run->infrastructure)
    v.integrity_reason = "the run failed for the environment (" + *input.run->infrastructure +
                         "), not the submission; audit it again";
  for (const auto& f : v.deciding) v.reasons.push_back(reason_line(f));
  return v;
}

}  // namespace kaudit::rules
