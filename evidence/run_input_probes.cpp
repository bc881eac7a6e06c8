#include "evidence/run_input_probes.h"

#include "evidence/json_fields.h"

namespace kaudit::evidence {
using json = nlohmann::json;

namespace {

constexpr const char* kCheckKeys[] = {"max_abs_error",  "max_rel_error",          "mismatches", "tolerated_mismatches",
                                      "unwritten_elements", "tie_reordered_elements", "atol"};

std::optional<long long> integer_field(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number_integer()) return std::nullopt;
  return j[key].get<long long>();
}

ProbeCall probe_call_from_json(const json& doc, int position) {
  ProbeCall c;
  c.shape_index = index_field(doc, "shape_index").value_or(position);
  c.case_index = index_field(doc, "case").value_or(0);
  c.status = text_field(doc, "status", c.status);
  c.reason = text_field(doc, "reason");
  for (const char* key : kCheckKeys)
    if (doc.contains(key) && doc[key].is_number()) c.check[key] = doc[key];
  c.non_finite = bool_field(doc, "non_finite").value_or(false);
  if (doc.contains("shape") && doc["shape"].is_object()) c.shape = doc["shape"];
  c.dim = text_field(doc, "dim");
  c.step = text_field(doc, "step");
  c.from = integer_field(doc, "from");
  c.to = integer_field(doc, "to");
  c.distribution = text_field(doc, "distribution");
  c.inputs_from = text_field(doc, "inputs_from");
  return c;
}

RejectedSize rejected_from_json(const json& doc, int) {
  RejectedSize r;
  r.dim = text_field(doc, "dim");
  if (doc.contains("tried") && doc["tried"].is_array()) r.tried = doc["tried"];
  r.reason = text_field(doc, "reason");
  return r;
}

SkippedDistribution skipped_from_json(const json& doc, int position) {
  return {index_field(doc, "shape_index").value_or(position), text_field(doc, "distribution"),
          text_field(doc, "reason")};
}

OffGridProbe off_grid_from_json(const json& doc) {
  OffGridProbe o;
  if (!doc.is_object()) return o;
  o.budget = index_field(doc, "budget").value_or(0);
  o.base_shape = index_field(doc, "base_shape");
  o.status = text_field(doc, "status");
  o.reason = text_field(doc, "reason");
  o.shapes = read_rows<ProbeCall>(doc.value("shapes", json::array()), probe_call_from_json);
  o.rejected = read_rows<RejectedSize>(doc.value("rejected", json::array()), rejected_from_json);
  if (doc.contains("not_sizes") && doc["not_sizes"].is_array())
    for (const auto& n : doc["not_sizes"])
      if (n.is_string()) o.not_sizes.push_back(n.get<std::string>());
  return o;
}

}  // namespace

json to_json(const ProbeCall& c) {
  json doc = {{"shape_index", c.shape_index}, {"case", c.case_index}, {"status", c.status}};
  if (!c.reason.empty()) doc["reason"] = c.reason;
  if (c.check.is_object()) doc.update(c.check);
  if (c.non_finite) doc["non_finite"] = true;
  if (!c.shape.is_null()) doc["shape"] = c.shape;
  if (!c.dim.empty()) doc["dim"] = c.dim;
  if (!c.step.empty()) doc["step"] = c.step;
  if (c.from) doc["from"] = *c.from;
  if (c.to) doc["to"] = *c.to;
  if (!c.distribution.empty()) doc["distribution"] = c.distribution;
  if (!c.inputs_from.empty()) doc["inputs_from"] = c.inputs_from;
  return doc;
}

json to_json(const RejectedSize& r) { return {{"dim", r.dim}, {"tried", r.tried}, {"reason", r.reason}}; }

json to_json(const SkippedDistribution& s) {
  return {{"shape_index", s.shape_index}, {"distribution", s.distribution}, {"reason", s.reason}};
}

json to_json(const OffGridProbe& o) {
  json doc = {{"budget", o.budget},
              {"shapes", record_rows(o.shapes)},
              {"rejected", record_rows(o.rejected)},
              {"not_sizes", o.not_sizes},
              {"status", o.status}};
  if (o.base_shape) doc["base_shape"] = *o.base_shape;
  if (!o.reason.empty()) doc["reason"] = o.reason;
  return doc;
}

json to_json(const InputProbesRecord& r) {
  json doc = {{"judged", r.judged},
              {"off_grid", to_json(r.off_grid)},
              {"distributions", record_rows(r.distributions)},
              {"distributions_skipped", record_rows(r.distributions_skipped)}};
  if (!r.judged) doc["reason"] = r.reason;
  return doc;
}

InputProbesRecord input_probes_record_from_json(const json& doc) {
  InputProbesRecord r;
  if (!doc.is_object()) return r;
  r.judged = bool_field(doc, "judged").value_or(false);
  r.reason = text_field(doc, "reason");
  r.off_grid = off_grid_from_json(doc.value("off_grid", json()));
  r.distributions = read_rows<ProbeCall>(doc.value("distributions", json::array()), probe_call_from_json);
  r.distributions_skipped =
      read_rows<SkippedDistribution>(doc.value("distributions_skipped", json::array()), skipped_from_json);
  return r;
}

}  // namespace kaudit::evidence
