#include "runner/plan/throughput.h"

#include "runner/plan/expression.h"

#include <stdexcept>

namespace kaudit::run {
using json = nlohmann::json;

json throughput_basis(const json& yaml, const std::map<std::string, double>& vars, const std::optional<Hardware>& hw,
                      const std::string& basis) {
  json out = {{"flops", nullptr}, {"bytes", nullptr}, {"compute_peak", nullptr}, {"memory_peak", nullptr}};
  const std::string regime = yaml.value("regime", std::string());
  const std::string precision = yaml.value("precision", std::string());
  out["regime"] = regime.empty() ? json(nullptr) : json(regime);
  out["precision"] = precision.empty() ? json(nullptr) : json(precision);
  json errors = json::array();
  for (const auto& [key, field] : {std::pair{"flops_formula", "flops"}, std::pair{"bytes_formula", "bytes"}}) {
    if (!yaml.contains(key) || !yaml[key].is_string()) continue;
    try {
      out[field] = evaluate_expression(yaml[key].get<std::string>(), vars);
    } catch (const std::invalid_argument& e) {
      errors.push_back(e.what());
    }
  }
  if (hw) {
    out["hardware"] = hw->name;
    if (const auto p = hw->memory_peak(basis)) out["memory_peak"] = {{"bytes_per_s", p->value}, {"basis", p->basis}};
    if (!precision.empty())
      if (const auto p = hw->compute_peak(precision, basis))
        out["compute_peak"] = {{"flops_per_s", p->value}, {"basis", p->basis}, {"precision", precision}};
  }
  if (!errors.empty()) out["errors"] = errors;
  return out;
}

json throughput(const json& b, double ms) {
  json out = json::object();
  if (ms <= 0) return out;
  const double s = ms * 1e-3;
  if (b.value("flops", json()).is_number()) {
    const double fps = b["flops"].get<double>() / s;
    out["tflops"] = fps / 1e12;
    if (b["compute_peak"].is_object())
      out["percent_of_compute_peak"] = 100.0 * fps / b["compute_peak"]["flops_per_s"].get<double>();
  }
  if (b.value("bytes", json()).is_number()) {
    const double bps = b["bytes"].get<double>() / s;
    out["gb_per_s"] = bps / 1e9;
    if (b["memory_peak"].is_object())
      out["percent_of_memory_peak"] = 100.0 * bps / b["memory_peak"]["bytes_per_s"].get<double>();
  }
  const std::string regime = b.value("regime", json()).is_string() ? b["regime"].get<std::string>() : "";
  const char* key = regime == "memory" ? "percent_of_memory_peak" : regime == "compute" ? "percent_of_compute_peak" : "";
  out["percent_of_peak"] = *key && out.contains(key) ? out[key] : json(nullptr);
  return out;
}

}  // namespace kaudit::run
