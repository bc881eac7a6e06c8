// run.json's `state_dict` (docs/runner.md, "The reference's state_dict"):
// per shape, whether the reference's state_dict loaded strictly into the
// submission's model as KernelBench-Hard's check.py loads it, and the run's
// outcome. The session fills the shapes from the harness's `state_dict`
// messages, the judge (runner/judge/aten_ops.h) makes the record, and
// run.json carries it, through these types.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace kaudit::evidence {

struct StateDictShape {
  int shape_index = -1;
  std::string status;                 // loaded | failed | not applicable
  std::optional<long long> keys;      // loaded: how many
  std::optional<std::string> reason;  // failed, not applicable: why
};

struct StateDictRecord {
  std::vector<StateDictShape> shapes;
  std::string status;   // failed (any shape), else not applicable (any shape), else loaded
  bool strict = false;  // loaded or failed: the load was strict
  std::string reason;   // failed, not applicable: the first such shape's
};

nlohmann::json to_json(const StateDictShape& shape);
nlohmann::json to_json(const StateDictRecord& record);
// Read back leniently (json_fields.h): a field missing or of another type is
// left out.
StateDictShape state_dict_shape_from_json(const nlohmann::json& row, int position);
StateDictRecord state_dict_record_from_json(const nlohmann::json& doc);

}  // namespace kaudit::evidence
