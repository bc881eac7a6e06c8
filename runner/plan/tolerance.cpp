#include "runner/plan/tolerance.h"

#include "common/utf8.h"

#include <cstdlib>
#include <stdexcept>

namespace kaudit::run {
using json = nlohmann::json;

namespace {

// KernelBench-Hard's defaults (src/eval/correctness.py): Stanford KernelBench's
// 1e-4 for fp32 and 1e-2 for half types, 1e-1 for fp8, integers exact.
Tolerance default_for(std::string_view dtype) {
  if (dtype == "float16" || dtype == "bfloat16") return {1e-2, 1e-2};
  if (dtype == "float8_e4m3fn" || dtype == "float8_e5m2") return {1e-1, 1e-1};
  if (dtype == "bool" || dtype == "uint8" || dtype.rfind("int", 0) == 0) return {0, 0};
  return {1e-4, 1e-4};
}

// A number, or a string that is one ("5e-2": PyYAML reads un-dotted
// scientific notation as a string).
std::optional<double> number_of(const json& v) {
  if (v.is_number()) return v.get<double>();
  if (!v.is_string()) return std::nullopt;
  const std::string s = v.get<std::string>();
  char* end = nullptr;
  const double d = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size()) return std::nullopt;
  return d;
}

// `missing`: what an absent atol or rtol of an {atol, rtol} object is.
std::optional<Tolerance> tolerance_value(const json& v, double missing) {
  if (const auto n = number_of(v)) return Tolerance{*n, *n};
  if (!v.is_object() || v.empty()) return std::nullopt;
  for (const auto& [k, x] : v.items())
    if ((k != "atol" && k != "rtol") || !number_of(x)) return std::nullopt;
  Tolerance t{missing, missing};
  if (v.contains("atol")) t.atol = *number_of(v["atol"]);
  if (v.contains("rtol")) t.rtol = *number_of(v["rtol"]);
  return t;
}

bool valid(const Tolerance& t) { return t.atol >= 0 && t.rtol >= 0; }

}  // namespace

Tolerance ToleranceTable::for_dtype(std::string_view dtype) const {
  const auto it = by_dtype.find(std::string(dtype));
  Tolerance t = all ? *all : it != by_dtype.end() ? it->second : default_for(dtype);
  t.non_finite_expected_excused = non_finite_expected_excused;
  return t;
}

json ToleranceTable::to_json() const {
  if (all) return {{"atol", all->atol}, {"rtol", all->rtol}};
  json by = json::object();
  for (const auto& [k, v] : by_dtype) by[k] = {{"atol", v.atol}, {"rtol", v.rtol}};
  return {{"by_dtype", by}, {"defaults", "kernelbench-hard"}};
}

ToleranceTable tolerance_of(const rules::Problem& p) {
  ToleranceTable table;
  if (p.format == rules::ProblemFormat::kernelbench) {  // KernelBench's eval: atol = rtol = 1e-2
    table.all = Tolerance{1e-2, 1e-2};
    return table;
  }
  const json tol = p.yaml.value("tolerance", json());
  const std::string where = (p.dir / "problem.yaml").string() + ": tolerance";
  if (tol.is_null()) return table;  // the defaults per dtype
  // kaudit's own {atol, rtol} form: a half left out stays at 1e-2.
  if (const auto t = tolerance_value(tol, 1e-2)) {
    if (!valid(*t)) throw std::runtime_error(where + " must not be negative");
    table.all = t;
    return table;
  }
  if (!tol.is_object() || tol.empty())
    throw std::runtime_error(where + " must be a number, {atol, rtol}, or a map from dtype to either");
  for (const auto& [key, v] : tol.items()) {
    const std::string dtype = key.rfind("torch.", 0) == 0 ? key.substr(6) : key;
    const auto t = tolerance_value(v, 0);  // upstream: a half left out is 0
    if (!t || !valid(*t))
      throw std::runtime_error(where + "." + key + " must be a non-negative number or {atol, rtol}, not " + common::json_text(v));
    table.by_dtype[dtype] = *t;
  }
  return table;
}

}  // namespace kaudit::run
