// run.json's `infrastructure` (the environment, not the submission, made the
// run fail: its result is then infrastructure-error) and `environment_retry`
// (the run was made once more, alone, for what looked like the environment;
// interrupted.json keeps it too). The audit's guard (audit/environment.h)
// writes them and the verdict (verdict_document.h) reads the cause, through
// these types.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace kaudit::evidence {

struct InfrastructureFailure {
  std::string cause = "the environment";
  int attempts = 0;         // the runs made: 0 when none could start
  long long free_bytes = 0;  // free under the temporary folder's root, then
};

struct EnvironmentRetry {
  std::string first_cause;
  int attempts = 1;                  // 2 once the retry ran
  std::optional<std::string> judged;  // the same failure alone: why it counts as the submission's
};

nlohmann::json to_json(const InfrastructureFailure& failure);
nlohmann::json to_json(const EnvironmentRetry& retry);
// Read back leniently (run_timing.h); anything but an object reads as none.
std::optional<InfrastructureFailure> infrastructure_failure_from_json(const nlohmann::json& doc);
std::optional<EnvironmentRetry> environment_retry_from_json(const nlohmann::json& doc);

}  // namespace kaudit::evidence
