// The verdict engine's documents: analysis.json and run.json read into the
// engine's typed input, and its verdict written as verdict.json
// (kaudit-verdict/1, docs/report-format.md).
#pragma once

#include "evidence/run_timing.h"
#include "rules/verdict.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kaudit::evidence {

// `analysis` is a kaudit-analysis/1 document (or one of its files[]
// entries), `run` a kaudit-run/1 document; either may be null. Throws
// std::runtime_error naming what is wrong when a document is malformed.
rules::VerdictInput verdict_input(const std::string& submission, const nlohmann::json* analysis,
                                  const nlohmann::json* run);
// The parts: the findings of a kaudit-analysis/1 document (or one files[]
// entry), and what a kaudit-run/1 document says for the verdict.
std::vector<rules::Finding> analysis_findings(const nlohmann::json& analysis);
rules::RunFacts run_facts(const nlohmann::json& run);

// The verdict document; `timing` is the run's per-shape timing table (none
// without a run).
nlohmann::json verdict_to_json(const rules::Verdict& verdict, const std::vector<ShapeTiming>& timing);
// The timing table of a kaudit-run/1 document (run_timing.h), or none.
std::vector<ShapeTiming> timing_of(const nlohmann::json* run);

// What a saved run.json says for a verdict (kaudit audit resuming, kaudit
// verdict): nothing when the file is missing. A file that is there but
// cannot be trusted (truncated, not JSON, not a kaudit-run/1 document) is
// never taken for "not run": its facts are corrupt_run_facts(why).
struct SavedRun {
  rules::RunFacts facts;
  nlohmann::json doc;  // the document; null when it is corrupt
};
std::optional<SavedRun> read_saved_run(const std::filesystem::path& path);
// An `error` run whose error (phase "evidence") says that its evidence is
// corrupt and why, and how to run it again.
rules::RunFacts corrupt_run_facts(const std::string& why);

// Reads, decides and writes in one step.
nlohmann::json decide_verdict_document(const std::string& submission, const nlohmann::json* analysis,
                                       const nlohmann::json* run, const rules::VerdictPolicy& policy);

}  // namespace kaudit::evidence
