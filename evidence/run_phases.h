// Where a run's time went, as run.json holds it (docs/runner.md): `phases[]`,
// each step of the reference's process, the submission's or the runner's in
// order, and `first_calls[]`, each shape's first call (builds and JIT
// compiles happen there). The runner writes them, the audit copies them into
// interrupted.json and the batch report reads them, through these types.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace kaudit::evidence {

struct RunPhase {
  std::string process;  // reference | submission | runner
  std::string phase;    // import, inputs, expected outputs; start, setup, correctness, timing, probe; comparison, trace
  double seconds = 0;
  // When the step began, in seconds from the run's start: the steps of the
  // two processes overlap, and this shows where (absent in older files).
  std::optional<double> began_s;
  std::optional<int> shape;
  std::optional<std::string> mode;
  // What else the step counts (expected outputs: jobs; comparison:
  // checks_begun_early, checks_read_back), as written.
  nlohmann::json counts = nlohmann::json::object();
};

struct FirstCall {
  std::string phase;  // correctness | probe
  int shape = -1;
  double seconds = 0;  // from the phase's start, the model's construction included
  std::vector<std::string> build_processes;   // what was seen building (a compiler, children's CPU time)
  std::optional<double> lent_while_building_s;  // the device lent to other runs meanwhile
};

// A phase from the step its writer names ({phase, shape?, mode?, counts...}).
RunPhase run_phase(const std::string& process, const nlohmann::json& step, double seconds);

nlohmann::json to_json(const RunPhase& phase);
nlohmann::json to_json(const FirstCall& call);
nlohmann::json to_json(const std::vector<RunPhase>& phases);
nlohmann::json to_json(const std::vector<FirstCall>& calls);
// Read back leniently (run_timing.h): entries that are not objects are skipped.
std::vector<RunPhase> phases_from_json(const nlohmann::json& rows);
std::vector<FirstCall> first_calls_from_json(const nlohmann::json& rows);

}  // namespace kaudit::evidence
