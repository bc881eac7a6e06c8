#include "evidence/run_correctness.h"

#include "evidence/json_fields.h"

namespace kaudit::evidence {
using json = nlohmann::json;

namespace {

constexpr const char* kCheckKeys[] = {"max_abs_error", "max_rel_error", "mismatches", "tolerated_mismatches",
                                      "tie_reordered_elements", "atol"};

CaseCheck case_from_json(const json& doc, int position) {
  CaseCheck c;
  c.index = index_field(doc, "case").value_or(position);
  if (doc.contains("seed") && doc["seed"].is_number_integer()) c.seed = doc["seed"].get<long long>();
  c.scale = finite_number(doc, "scale").value_or(1.0);
  c.kind = text_field(doc, "kind", c.kind);
  c.status = text_field(doc, "status", c.status);
  c.reason = text_field(doc, "reason", "");
  for (const char* key : kCheckKeys)
    if (doc.contains(key) && doc[key].is_number()) c.check[key] = doc[key];
  if (const auto n = finite_number(doc, "unwritten_elements"); n && *n > 0) c.unwritten_elements = static_cast<std::size_t>(*n);
  if (doc.contains("inputs_mutated") && doc["inputs_mutated"].is_array())
    for (const auto& k : doc["inputs_mutated"])
      if (k.is_number_integer()) c.inputs_mutated.push_back(k.get<int>());
  c.inputs_from = text_field(doc, "inputs_from", "");
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
  json doc = {{"shape_index", s.shape_index}, {"shape", s.shape}, {"cases", record_rows(s.cases)}, {"passed", s.passed}};
  if (!s.stream_order.is_null()) doc["stream_order"] = s.stream_order;
  if (!s.reference_habits.is_null()) doc["reference_habits"] = s.reference_habits;
  return doc;
}

json to_json(const std::vector<ShapeCorrectness>& correctness) { return record_rows(correctness); }

ShapeCorrectness shape_correctness_from_json(const json& doc, int position) {
  ShapeCorrectness s;
  s.shape_index = index_field(doc, "shape_index").value_or(position);
  if (!doc.is_object()) return s;
  if (doc.contains("shape")) s.shape = doc["shape"];
  if (doc.contains("cases")) s.cases = read_rows<CaseCheck>(doc["cases"], case_from_json);
  if (doc.contains("stream_order") && doc["stream_order"].is_object()) s.stream_order = doc["stream_order"];
  if (doc.contains("reference_habits") && doc["reference_habits"].is_object())
    s.reference_habits = doc["reference_habits"];
  s.passed = bool_field(doc, "passed").value_or(false);
  return s;
}

std::vector<ShapeCorrectness> correctness_from_json(const json& rows) {
  return read_rows<ShapeCorrectness>(rows, shape_correctness_from_json);
}

}  // namespace kaudit::evidence
