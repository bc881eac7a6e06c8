#include "evidence/run_environment.h"

#include "evidence/json_fields.h"

namespace kaudit::evidence {
using json = nlohmann::json;

json to_json(const InfrastructureFailure& f) {
  return {{"cause", f.cause}, {"attempts", f.attempts}, {"free_bytes", f.free_bytes}};
}

json to_json(const EnvironmentRetry& r) {
  json doc = {{"first_cause", r.first_cause}, {"attempts", r.attempts}};
  if (r.judged) doc["judged"] = *r.judged;
  return doc;
}

std::optional<InfrastructureFailure> infrastructure_failure_from_json(const json& doc) {
  if (!doc.is_object()) return std::nullopt;
  InfrastructureFailure f;
  f.cause = text_field(doc, "cause", f.cause);
  f.attempts = index_field(doc, "attempts").value_or(0);
  f.free_bytes = whole_number(doc, "free_bytes").value_or(0);
  return f;
}

std::optional<EnvironmentRetry> environment_retry_from_json(const json& doc) {
  if (!doc.is_object()) return std::nullopt;
  EnvironmentRetry r;
  r.first_cause = text_field(doc, "first_cause");
  r.attempts = index_field(doc, "attempts").value_or(1);
  if (doc.contains("judged") && doc["judged"].is_string()) r.judged = doc["judged"].get<std::string>();
  return r;
}

}  // namespace kaudit::evidence
