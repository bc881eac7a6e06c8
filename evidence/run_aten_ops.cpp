#include "evidence/run_aten_ops.h"

#include "evidence/json_fields.h"

#include <algorithm>

namespace kaudit::evidence {
using json = nlohmann::json;

json to_json(const AtenOpsGroup& g) {
  json doc = {{"shape", g.shape}, {"phase", g.phase}, {"calls", g.calls}, {"ops", g.ops}, {"gaps", g.gaps}};
  if (g.work) {
    json work = json::object();
    for (const auto& [name, w] : *g.work) work[name] = {w.elements, w.ns};
    doc["work"] = work;
  }
  if (g.input_elements) doc["input_elements"] = *g.input_elements;
  return doc;
}

json to_json(const BannedAtenOp& b) {
  return {{"op", b.op}, {"banned_as", b.banned_as}, {"shape", b.shape}, {"phase", b.phase}, {"count", b.count}};
}

json to_json(const AtenOpsRecord& r) {
  json doc = {{"groups", record_rows(r.groups)}, {"banned", record_rows(r.banned)}, {"complete", r.complete}};
  if (!r.complete) doc["incomplete"] = r.incomplete;
  return doc;
}

AtenOpsGroup aten_ops_group_from_json(const json& row) {
  AtenOpsGroup g;
  g.shape = index_field(row, "shape", -1).value_or(-1);
  g.phase = text_field(row, "phase");
  g.calls = whole_number(row, "calls").value_or(0);
  if (row.contains("ops") && row["ops"].is_object())
    for (const auto& [name, count] : row["ops"].items())
      if (const auto n = whole_number(row["ops"], name.c_str())) g.ops[name] = std::min(*n, kMaxOpMeasure);
  if (row.contains("work") && row["work"].is_object()) {
    g.work.emplace();
    for (const auto& [name, w] : row["work"].items())
      if (w.is_array() && w.size() == 2 && w[0].is_number_integer() && w[1].is_number_integer() &&
          w[0].get<long long>() >= 0 && w[1].get<long long>() >= 0)
        (*g.work)[name] =
            AtenOpWork{std::min(w[0].get<long long>(), kMaxOpMeasure), std::min(w[1].get<long long>(), kMaxOpMeasure)};
  }
  if (const auto n = whole_number(row, "input_elements")) g.input_elements = std::min(*n, kMaxOpMeasure);
  if (row.contains("gaps") && row["gaps"].is_array())
    for (const auto& gap : row["gaps"])
      g.gaps.push_back(gap.is_string() ? gap.get<std::string>() : std::string("a gap of another type"));
  return g;
}

AtenOpsRecord aten_ops_record_from_json(const json& doc) {
  AtenOpsRecord r;
  if (!doc.is_object()) {
    r.incomplete = "the run document has no record of them";
    return r;
  }
  r.groups = read_rows<AtenOpsGroup>(doc.value("groups", json::array()),
                                     [](const json& row, int) { return aten_ops_group_from_json(row); });
  r.banned = read_rows<BannedAtenOp>(doc.value("banned", json::array()), [](const json& row, int) {
    return BannedAtenOp{text_field(row, "op"), text_field(row, "banned_as"), text_field(row, "phase"),
                        index_field(row, "shape", -1).value_or(-1), whole_number(row, "count").value_or(0)};
  });
  r.complete = bool_field(doc, "complete").value_or(false);
  if (!r.complete) r.incomplete = text_field(doc, "incomplete", "the record says it is incomplete");
  return r;
}

}  // namespace kaudit::evidence
