#include "rules/verdict.h"

#include <algorithm>
#include <stdexcept>

namespace kaudit::rules {
namespace {

using json = nlohmann::json;

std::vector<Finding> findings_of_analysis(const json& doc) {
  std::vector<Finding> out;
  auto take = [&](const json& entry) {
    for (const auto& f : entry.at("findings")) out.push_back(finding_from_json(f));
  };
  if (doc.contains("schema")) {
    if (doc.at("schema") != "kaudit-analysis/1")
      throw std::runtime_error("analysis document has schema " + doc.at("schema").dump() + ", want kaudit-analysis/1");
    for (const auto& file : doc.at("files")) take(file);
  } else {
    take(doc);  // one files[] entry
  }
  return out;
}

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

}  // namespace

VerdictPolicy verdict_policy_of(const RulePack& pack) {
  const json* section = nullptr;
  static const RulePack fallback = default_rule_pack();
  if (pack.raw.contains("verdict"))
    section = &pack.raw["verdict"];
  else if (fallback.raw.contains("verdict"))
    section = &fallback.raw["verdict"];
  VerdictPolicy p;
  if (!section) return p;
  for (const auto& id : section->value("static_decides", json::array())) p.static_decides.insert(id.get<std::string>());
  const json confirmed = section->value("confirmed_by", json::object());  // a copy: items() must not outlive it
  for (const auto& [id, list] : confirmed.items())
    for (const auto& r : list) p.confirmed_by[id].push_back(r.get<std::string>());
  if (auto c = confidence_from_string(section->value("static_min_confidence", "high"))) p.static_min_confidence = *c;
  if (auto c = confidence_from_string(section->value("runtime_min_confidence", "medium"))) p.runtime_min_confidence = *c;
  return p;
}

json decide_verdict(const Evidence& evidence, const VerdictPolicy& policy) {
  std::vector<Finding> statics;
  if (evidence.analysis) statics = findings_of_analysis(*evidence.analysis);

  std::vector<Finding> runtime;
  std::string result = "not-run";
  json result_reason = nullptr;
  bool completed_run = false;
  json evidence_gap = nullptr;  // a completed run whose trace lacks calls: integrity cannot be shown
  if (evidence.run) {
    const json& run = *evidence.run;
    if (run.value("schema", "") != "kaudit-run/1")
      throw std::runtime_error("run document has schema " + run.value("schema", std::string("(none)")) +
                               ", want kaudit-run/1");
    result = run.at("result").get<std::string>();
    if (result != "correct" && result != "incorrect" && result != "error")
      throw std::runtime_error("run document has result '" + result + "'");
    if (run.contains("error") && !run["error"].is_null()) result_reason = run["error"];
    for (const auto& f : run.value("findings", json::array())) runtime.push_back(finding_from_json(f));
    completed_run = result != "error";
    if (run.contains("trace_incomplete") && run["trace_incomplete"].is_string()) evidence_gap = run["trace_incomplete"];
  }

  std::vector<Finding> deciding, beside;
  std::set<std::string> runtime_ids;
  for (const auto& f : runtime) {
    if (decides(f) && rank(f.confidence) >= rank(policy.runtime_min_confidence)) {
      deciding.push_back(f);
      runtime_ids.insert(f.id);
    } else {
      beside.push_back(f);
    }
  }
  for (auto f : statics) {
    if (!decides(f)) {
      beside.push_back(f);
      continue;
    }
    const bool alone = policy.static_decides.count(f.id) && rank(f.confidence) >= rank(policy.static_min_confidence);
    bool confirmed = false;
    if (auto it = policy.confirmed_by.find(f.id); it != policy.confirmed_by.end())
      confirmed = std::any_of(it->second.begin(), it->second.end(), [&](const std::string& r) { return runtime_ids.count(r); });
    if (alone || confirmed) {
      deciding.push_back(f);
      continue;
    }
    // Static evidence that nothing at run time confirmed: reported beside
    // the verdict as suspicious, never deciding it.
    f.message += completed_run ? " (not confirmed at run time)" : " (no completed run to confirm it)";
    f.category = Category::suspicious;
    beside.push_back(f);
  }
  sort_and_deduplicate(deciding);
  sort_and_deduplicate(beside);

  std::string integrity;
  const auto any = [&](Category c) {
    return std::any_of(deciding.begin(), deciding.end(), [&](const Finding& f) { return f.category == c; });
  };
  if (any(Category::cheat))
    integrity = "cheat";
  else if (any(Category::benchmark_aware))
    integrity = "benchmark-aware";
  else if (completed_run && evidence_gap.is_null())
    integrity = "clean";
  else
    integrity = evidence.run ? "unverified" : "not-run";

  json reasons = json::array();
  for (const auto& f : deciding) reasons.push_back(reason_line(f));
  json deciding_json = json::array(), beside_json = json::array();
  for (const auto& f : deciding) deciding_json.push_back(to_json(f));
  for (const auto& f : beside) beside_json.push_back(to_json(f));

  return {{"schema", kVerdictSchema},
          {"submission", evidence.submission},
          {"result", result},
          {"result_reason", result_reason},
          {"integrity_reason", integrity == "unverified" && !evidence_gap.is_null() ? evidence_gap : json(nullptr)},
          {"integrity", integrity},
          {"reasons", reasons},
          {"deciding", deciding_json},
          {"beside", beside_json},
          // Bench and fresh times per shape, as the run measured them.
          {"timing", evidence.run && evidence.run->contains("timing") && (*evidence.run)["timing"].is_array()
                         ? (*evidence.run)["timing"]
                         : json::array()},
          {"evidence", {{"static", evidence.analysis != nullptr}, {"run", evidence.run != nullptr}}}};
}

}  // namespace kaudit::rules
