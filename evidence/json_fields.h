// Lenient field reads for documents kaudit reads back (run.json written by
// another kaudit, or edited by hand): a field missing or of another type
// reads as absent, never as an exception; and the row loops of the run
// records (run_timing.h, run_correctness.h, run_phases.h).
#pragma once

#include <nlohmann/json.hpp>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace kaudit::evidence {

// `j[key]` as a finite number, or none.
inline std::optional<double> finite_number(const nlohmann::json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return std::nullopt;
  const double v = j[key].get<double>();
  return std::isfinite(v) ? std::optional(v) : std::nullopt;
}

// `j[key]` as a whole number in [lowest, 1e9] (an index, a count), or none.
inline std::optional<int> index_field(const nlohmann::json& j, const char* key, int lowest = 0) {
  const auto v = finite_number(j, key);
  if (!v || *v < lowest || *v > 1e9) return std::nullopt;
  return static_cast<int>(*v);
}

// `j[key]` as a whole number of at least 0 (a count, nanoseconds), or none.
inline std::optional<long long> whole_number(const nlohmann::json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number_integer()) return std::nullopt;
  const long long v = j[key].get<long long>();
  return v >= 0 ? std::optional(v) : std::nullopt;
}

// `j[key]` as a boolean, or none.
inline std::optional<bool> bool_field(const nlohmann::json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_boolean()) return std::nullopt;
  return j[key].get<bool>();
}

// The elements of the array `j[key]` for which `(element.*is)()` holds, as
// T; none where it is not an array.
template <class T>
std::vector<T> list_field(const nlohmann::json& j, const char* key, bool (nlohmann::json::*is)() const noexcept) {
  std::vector<T> out;
  if (j.is_object() && j.contains(key) && j[key].is_array())
    for (const auto& v : j[key])
      if ((v.*is)()) out.push_back(v.get<T>());
  return out;
}

// `j[key]` as a string, or `fallback`.
inline std::string text_field(const nlohmann::json& j, const char* key, const std::string& fallback = "") {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : fallback;
}

// Each record's to_json, as an array.
template <class Record>
nlohmann::json record_rows(const std::vector<Record>& records) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : records) rows.push_back(to_json(r));
  return rows;
}

// `read(row, position)` for each object of `rows` (position counts objects
// only); anything else reads as no rows.
template <class Record, class Read>
std::vector<Record> read_rows(const nlohmann::json& rows, Read read) {
  std::vector<Record> out;
  if (!rows.is_array()) return out;
  int position = 0;
  for (const auto& row : rows)
    if (row.is_object()) out.push_back(read(row, position++));
  return out;
}

}  // namespace kaudit::evidence
