// run.json's `aten_ops` (docs/runner.md, "ATen ops"): what ATen ran in the
// submission's untimed recorded calls, group by group, which of those ops
// the problem bans, and whether the record can vouch for the calls. The
// runner's session fills the groups from the harness's `ops` messages, its
// judge (runner/judge/aten_ops.h) completes the record, and run.json and
// the verdict read it, through these types.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kaudit::evidence {

// The largest count, element total or time (ns) a record keeps: a harness
// message is the submission's process's, and sums of these cannot overflow.
inline constexpr long long kMaxOpMeasure = 1'000'000'000'000'000;

// What one op's calls in a group did: the elements of the tensors they read
// and returned (the same on every machine), and their time (on the CPU the
// op's work, on a GPU its launch).
struct AtenOpWork {
  long long elements = 0, ns = 0;
};

// One recorded call: a shape's `first-case` call or a timing mode's.
struct AtenOpsGroup {
  int shape = -1;
  std::string phase;
  long long calls = 0;
  std::map<std::string, long long> ops;  // ATen name -> count
  // None: a harness from before the measures (run.json without `work`).
  std::optional<std::map<std::string, AtenOpWork>> work;
  std::optional<long long> input_elements;  // of the call's inputs (with `work`)
  std::vector<std::string> gaps;  // why the record cannot vouch for the call
};

// Whether the group carries what skipped work is judged from (the measures
// and its inputs' size) and has no gap: the judge
// (runner/judge/ops_skipped_on_repeat.h) and the checks a run made
// (run_checks.h) ask the same.
inline bool measured(const AtenOpsGroup& g) { return g.gaps.empty() && g.work && g.input_elements; }

struct BannedAtenOp {
  std::string op, banned_as, phase;
  int shape = -1;
  long long count = 0;
};

struct AtenOpsRecord {
  std::vector<AtenOpsGroup> groups;
  std::vector<BannedAtenOp> banned;
  bool complete = false;
  std::string incomplete;  // why not, when not complete
};

nlohmann::json to_json(const AtenOpsGroup& group);
nlohmann::json to_json(const BannedAtenOp& banned);
nlohmann::json to_json(const AtenOpsRecord& record);
// Read back leniently (json_fields.h): a count or measure of another type
// is left out, and a record that is not an object reads as incomplete.
AtenOpsGroup aten_ops_group_from_json(const nlohmann::json& row);
AtenOpsRecord aten_ops_record_from_json(const nlohmann::json& doc);

}  // namespace kaudit::evidence
