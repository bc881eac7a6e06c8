// Lenient field reads for documents kaudit reads back (run.json written by
// another kaudit, or edited by hand): a field missing or of another type
// reads as absent, never as an exception.
#pragma once

#include <nlohmann/json.hpp>

#include <cmath>
#include <optional>

namespace kaudit::evidence {

// `j[key]` as a finite number, or none.
inline std::optional<double> finite_number(const nlohmann::json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return std::nullopt;
  const double v = j[key].get<double>();
  return std::isfinite(v) ? std::optional(v) : std::nullopt;
}

}  // namespace kaudit::evidence
