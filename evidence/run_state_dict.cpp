#include "evidence/run_state_dict.h"

#include "evidence/json_fields.h"

namespace kaudit::evidence {
using json = nlohmann::json;

json to_json(const StateDictShape& s) {
  json doc = {{"shape_index", s.shape_index}, {"status", s.status}};
  if (s.keys) doc["keys"] = *s.keys;
  if (s.reason) doc["reason"] = *s.reason;
  return doc;
}

json to_json(const StateDictRecord& r) {
  json doc = {{"shapes", record_rows(r.shapes)}, {"status", r.status}};
  if (r.strict) doc["strict"] = true;
  if (r.status != "loaded") doc["reason"] = r.reason;
  return doc;
}

StateDictShape state_dict_shape_from_json(const json& row, int position) {
  StateDictShape s;
  s.shape_index = index_field(row, "shape_index").value_or(position);
  s.status = text_field(row, "status");
  s.keys = whole_number(row, "keys");
  if (row.contains("reason") && row["reason"].is_string()) s.reason = row["reason"].get<std::string>();
  return s;
}

StateDictRecord state_dict_record_from_json(const json& doc) {
  StateDictRecord r;
  if (!doc.is_object()) return r;
  r.shapes = read_rows<StateDictShape>(doc.value("shapes", json::array()), state_dict_shape_from_json);
  r.status = text_field(doc, "status");
  r.strict = bool_field(doc, "strict").value_or(false);
  r.reason = text_field(doc, "reason");
  return r;
}

}  // namespace kaudit::evidence
