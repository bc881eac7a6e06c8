#include "evidence/run_correctness.h"

#include "evidence/json_fields.h"

namespace kaudit::evidence {
using json = nlohmann::json;

namespace {

constexpr const char* kCheckKeys[] = {"max_abs_error", "max_rel_error", "mismatches", "tolerated_mismatches",
                                      "tie_reordered_elements", "atol"};

std::string text(const json& j, const char* key, const std::string& fallback) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : fallback;
}

CaseCheck case_from_json(const json& doc, int position) {
  CaseCheck c;
  c.index = position;
  if (const auto i = finite_number(doc, "case"); i && *i >= 0 && *i <= 1e9) c.index = static_cast<int>(*i);
  if (doc.contains("seed") && doc["seed"].is_number_integer()) c.seed = doc["seed"].get<long long>();
  c.scale = finite_number(doc, "scale").value_or(1.0);
  c.kind = text(doc, "kind", c.kind);
  c.status = text(doc, "status", c.status);
  c.reason = text(doc, "reason", "");
  for (const char* key : kCheckKeys)
    if (doc.contains(key) && doc[key].is_number()) c.check[key] = doc[key];
  if (const auto n = finite_number(doc, "unwritten_elements"); n && *n > 0) c.unwritten_elements = static_cast<std::size_t>(*n);
  if (doc.contains("inputs_mutated") && doc["inputs_mutated"].is_array())
    for (const auto& k : doc["inputs_mutated"])
      if (k.is_number_integer()) c.inputs_mutated.push_back(k.get<int>());
  c.inputs_from = text(doc, "inputs_from", "");
  return c;
}

}  // namespace

json to_json(const CaseCheck& c) {
  json doc = {{"case", c.index}, {"scale", c.scale}, {"kind", c.kind}, {"status", c.status}};
  doc["seed"] = c.seed ? json(*c.seed) : json(nullptr);
  if (!c.reason.empty()) doc["reason"] = c.reason;
  if (c.check.is_object()) doc.update(c.check);
  if (c.unwritten_elements > 0) doc["unwritten_elements"] = c.unwritten_elements;
  if (!c.inputs_mutated.empty()) doc["inputs_mutated"] = c.inputs_mutated;
  if (!c.inputs_from.empty()) doc["inputs_from"] = c.inputs_from;
  return doc;
}

json to_json(const ShapeCorrectness& s) {
  json cases = json::array();
  for (const auto& c : s.cases) cases.push_back(to_json(c));
  json doc = {{"shape_index", s.shape_index}, {"shape", s.shape}, {"cases", cases}, {"passed", s.passed}};
  if (!s.stream_order.is_null()) doc["stream_order"] = s.stream_order;
  if (!s.reference_habits.is_null()) doc["reference_habits"] = s.reference_habits;
  return doc;
}

json to_json(const std::vector<ShapeCorrectness>& correctness) {
  json rows = json::array();
  for (const auto& s : correctness) rows.push_back(to_json(s));
  return rows;
}

ShapeCorrectness shape_correctness_from_json(const json& doc, int position) {
  ShapeCorrectness s;
  s.shape_index = position;
  if (!doc.is_object()) return s;
  if (const auto i = finite_number(doc, "shape_index"); i && *i >= 0 && *i <= 1e9) s.shape_index = static_cast<int>(*i);
  if (doc.contains("shape")) s.shape = doc["shape"];
  if (doc.contains("cases") && doc["cases"].is_array()) {
    int k = 0;
    for (const auto& c : doc["cases"])
      if (c.is_object()) s.cases.push_back(case_from_json(c, k++));
  }
  if (doc.contains("stream_order") && doc["stream_order"].is_object()) s.stream_order = doc["stream_order"];
  if (doc.contains("reference_habits") && doc["reference_habits"].is_object())
    s.reference_habits = doc["reference_habits"];
  s.passed = doc.contains("passed") && doc["passed"].is_boolean() && doc["passed"].get<bool>();
  return s;
}

std::vector<ShapeCorrectness> correctness_from_json(const json& rows) {
  std::vector<ShapeCorrectness> out;
  if (!rows.is_array()) return out;
  int position = 0;
  for (const auto& row : rows)
    if (row.is_object()) out.push_back(shape_correctness_from_json(row, position++));
  return out;
}

}  // namespace kaudit::evidence
