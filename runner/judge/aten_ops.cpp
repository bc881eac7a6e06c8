#include "runner/judge/aten_ops.h"

#include "rules/aten_names.h"
#include "runner/judge/ops_skipped_on_repeat.h"
#include "runner/judge/probe_findings.h"

#include <set>

namespace kaudit::run {
using json = nlohmann::json;

namespace {

std::string group_name(int shape, const std::string& phase) {
  return "shape " + std::to_string(shape) + ", the untimed " + phase + " call";
}

// Why the record cannot vouch for the graded calls, or "" when it can.
std::string why_incomplete(const std::vector<evidence::AtenOpsGroup>& groups, int shapes,
                           const std::vector<std::string>& modes, bool finished) {
  if (!finished) return "the run ended before every call was made and recorded";
  for (const auto& g : groups)
    if (!g.gaps.empty()) return group_name(g.shape, g.phase) + ": " + g.gaps.front();
  std::set<std::pair<int, std::string>> seen;
  for (const auto& g : groups) seen.insert({g.shape, g.phase});
  for (int i = 0; i < shapes; ++i) {
    std::vector<std::string> phases = {"first-case"};
    phases.insert(phases.end(), modes.begin(), modes.end());
    for (const auto& p : phases)
      if (!seen.count({i, p})) return "no record of shape " + std::to_string(i) + "'s untimed " + p + " call";
  }
  return "";
}

}  // namespace

evidence::AtenOpsRecord aten_ops_record(const std::vector<evidence::AtenOpsGroup>& groups, int shapes,
                                        const std::vector<std::string>& modes, bool finished,
                                        const rules::RulePack& pack) {
  const auto banned_ops = rules::banned_aten_ops(pack);
  evidence::AtenOpsRecord record;
  record.groups = groups;
  for (const auto& g : groups) {
    if (g.shape < 0 || g.shape >= shapes) continue;  // input probes: not graded
    for (const auto& [op, count] : g.ops) {
      const auto it = banned_ops.find(rules::aten_base_name(op));
      if (it != banned_ops.end()) record.banned.push_back({op, it->second, g.phase, g.shape, count});
    }
  }
  record.incomplete = why_incomplete(groups, shapes, modes, finished);
  record.complete = record.incomplete.empty();
  return record;
}

std::vector<rules::Finding> banned_aten_op_findings(const evidence::AtenOpsRecord& record,
                                                    const std::string& solution) {
  // One finding per op, its first group named and its calls counted.
  std::map<std::string, std::pair<const evidence::BannedAtenOp*, long long>> by_op;
  for (const auto& b : record.banned) {
    auto [it, fresh] = by_op.try_emplace(b.op, &b, 0);
    it->second.second += b.count;
  }
  std::vector<rules::Finding> out;
  for (const auto& [op, first] : by_op) {
    const evidence::BannedAtenOp& b = *first.first;
    out.push_back(make_probe_finding(
        "banned-aten-op", solution, op,
        "ATen ran " + op + " " + std::to_string(first.second) + " time(s) in the submission's recorded calls (first in " +
            group_name(b.shape, b.phase) + "): the problem bans " + b.banned_as + "."));
  }
  return out;
}

std::optional<evidence::StateDictRecord> state_dict_record(const std::map<int, evidence::StateDictShape>& by_shape) {
  if (by_shape.empty()) return std::nullopt;
  evidence::StateDictRecord record;
  const evidence::StateDictShape* failed = nullptr;
  const evidence::StateDictShape* not_applicable = nullptr;
  for (const auto& [i, s] : by_shape) {
    record.shapes.push_back(s);
    record.shapes.back().shape_index = i;
    if (s.status == "failed" && !failed) failed = &s;
    if (s.status == "not applicable" && !not_applicable) not_applicable = &s;
  }
  if (failed) {
    record.status = "failed";
    record.strict = true;
    record.reason = failed->reason.value_or("");
  } else if (not_applicable) {
    record.status = "not applicable";
    record.reason = not_applicable->reason.value_or("");
  } else {
    record.status = "loaded";
    record.strict = true;
  }
  return record;
}

void judge_aten_ops(const RunPlan& plan, const SubmissionReport& report, int shapes, RunResult& result) {
  const bool finished = report.done && !report.error.is_object() && !result.error;
  result.aten_ops = aten_ops_record(report.aten_ops, shapes, plan.options.modes, finished, plan.pack);
  auto found = banned_aten_op_findings(*result.aten_ops, plan.options.solution.string());
  // On a GPU the trace decides skipped work from the kernels (a CUDA graph's
  // replay runs kernels but no ATen op), and an op's time there is its launch.
  if (plan.options.device == "cpu") {
    const auto skipped = ops_skipped_on_repeat(*result.aten_ops, shapes, plan.options.solution.string());
    found.insert(found.end(), skipped.begin(), skipped.end());
  }
  result.findings.insert(result.findings.end(), found.begin(), found.end());
  result.state_dict = state_dict_record(report.state_dict);
}

}  // namespace kaudit::run
