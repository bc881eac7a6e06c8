#include "evidence/verdict_document.h"

#include "evidence/json_file.h"
#include "evidence/run_aten_ops.h"
#include "evidence/run_checks.h"
#include "evidence/run_environment.h"
#include "evidence/schemas.h"
#include "common/utf8.h"

#include <stdexcept>

namespace kaudit::evidence {
using json = nlohmann::json;

std::vector<rules::Finding> analysis_findings(const json& doc) {
  std::vector<rules::Finding> out;
  auto take = [&](const json& entry) {
    for (const auto& f : entry.at("findings")) out.push_back(rules::finding_from_json(f));
  };
  if (doc.contains("schema")) {
    if (doc.at("schema") != kAnalysisSchema)
      throw std::runtime_error("analysis document has schema " + common::json_text(doc.at("schema")) + ", want " +
                               kAnalysisSchema);
    for (const auto& file : doc.at("files")) take(file);
  } else {
    take(doc);  // one files[] entry
  }
  return out;
}

rules::RunFacts run_facts(const json& run) {
  if (run.value("schema", "") != kRunSchema)
    throw std::runtime_error("run document has schema " + run.value("schema", std::string("(none)")) + ", want " +
                             kRunSchema);
  rules::RunFacts facts;
  facts.result = run.at("result").get<std::string>();
  if (run.contains("error") && !run["error"].is_null()) facts.error = run["error"];
  if (run.contains("result_reason") && run["result_reason"].is_string())
    facts.incorrect_reason = run["result_reason"].get<std::string>();
  for (const auto& f : run.value("findings", json::array())) facts.findings.push_back(rules::finding_from_json(f));
  if (run.contains("trace_incomplete") && run["trace_incomplete"].is_string())
    facts.trace_incomplete = run["trace_incomplete"].get<std::string>();
  // The record of the ATen ops the submission ran; a document without one
  // (an older kaudit) cannot confirm or rule out a banned call either.
  const AtenOpsRecord ops = aten_ops_record_from_json(run.contains("aten_ops") ? run["aten_ops"] : json());
  if (!ops.complete) facts.ops_incomplete = ops.incomplete;
  const json& iso = run.contains("isolation") ? run["isolation"] : json();
  facts.isolation_weakness = rules::isolation_caveat(iso);
  if (const auto failure = infrastructure_failure_from_json(run.contains("infrastructure") ? run["infrastructure"] : json()))
    facts.infrastructure = failure->cause;
  facts.checked = runtime_checks_made(run);
  return facts;
}

rules::VerdictInput verdict_input(const std::string& submission, const json* analysis, const json* run) {
  rules::VerdictInput in;
  in.submission = submission;
  if (analysis) in.static_findings = analysis_findings(*analysis);
  if (run) in.run = run_facts(*run);
  return in;
}

std::vector<ShapeTiming> timing_of(const json* run) {
  return run && run->is_object() && run->contains("timing") ? timing_from_json((*run)["timing"])
                                                            : std::vector<ShapeTiming>{};
}

json verdict_to_json(const rules::Verdict& v, const std::vector<ShapeTiming>& timing) {
  json deciding = json::array(), beside = json::array();
  for (const auto& f : v.deciding) deciding.push_back(rules::to_json(f));
  for (const auto& f : v.beside) beside.push_back(rules::to_json(f));
  json refuted = json::array();
  for (const auto& r : v.refuted) refuted.push_back({{"id", r.id}, {"line", r.line}, {"by", r.by}});
  return {{"schema", kVerdictSchema},
          {"submission", v.submission},
          {"result", v.result},
          {"result_reason", v.result_reason},
          {"integrity_reason", v.integrity_reason ? json(*v.integrity_reason) : json(nullptr)},
          {"integrity", v.integrity},
          {"reasons", v.reasons},
          {"caveats", v.caveats},
          {"deciding", deciding},
          {"beside", beside},
          {"refuted", refuted},
          // Bench and fresh times per shape, as the run measured them.
          {"timing", to_json(timing)},
          {"evidence", {{"static", v.had_static}, {"run", v.had_run}}}};
}

rules::RunFacts corrupt_run_facts(const std::string& why) {
  rules::RunFacts facts;
  facts.result = "error";
  facts.error = {{"phase", "evidence"},
                 {"reason", "run.json " + why +
                                ": the run's evidence is corrupt; delete run.json and verdict.json from the "
                                "submission's folder and audit the batch again to run it again"}};
  return facts;
}

std::optional<SavedRun> read_saved_run(const std::filesystem::path& path) {
  JsonDocument read = read_json_document(path);
  if (read.status == JsonDocument::missing) return std::nullopt;
  if (read.status == JsonDocument::corrupt) return SavedRun{corrupt_run_facts(read.error), json()};
  try {
    rules::RunFacts facts = run_facts(read.doc);
    return SavedRun{std::move(facts), std::move(read.doc)};
  } catch (const std::exception& e) {
    return SavedRun{corrupt_run_facts(std::string("is not a run document kaudit can read: ") + e.what()), json()};
  }
}

json decide_verdict_document(const std::string& submission, const json* analysis, const json* run,
                             const rules::VerdictPolicy& policy) {
  return verdict_to_json(rules::decide_verdict(verdict_input(submission, analysis, run), policy), timing_of(run));
}

}  // namespace kaudit::evidence
