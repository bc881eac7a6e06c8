// Work per call and % of peak: problem.yaml's flops_formula and
// bytes_formula evaluated (runner/plan/expression.h) with the shape's values,
// against the peaks of rules/hardware/<gpu>.json.
#pragma once

#include "runner/process/hardware.h"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>

namespace kaudit::run {

// {flops, bytes, regime, precision, compute_peak, memory_peak, basis, errors}
// with nulls where a formula or a peak is missing. Never throws.
nlohmann::json throughput_basis(const nlohmann::json& problem_yaml, const std::map<std::string, double>& vars,
                                const std::optional<Hardware>& hw, const std::string& basis);
// {tflops, gb_per_s, percent_of_compute_peak, percent_of_memory_peak,
// percent_of_peak (the regime's)} for one time in ms.
nlohmann::json throughput(const nlohmann::json& basis, double ms);

}  // namespace kaudit::run
