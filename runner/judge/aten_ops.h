// What the submission's process said about its model beyond its outputs
// (issue 15): which ATen ops its calls ran (the harness's `ops` messages,
// run.json's aten_ops, the banned-aten-op finding; item 6), and whether the
// reference's state_dict was loaded into its model as KernelBench-Hard loads
// it (the `state_dict` messages, run.json's state_dict; item 5b).
#pragma once

#include "evidence/run_aten_ops.h"
#include "evidence/run_state_dict.h"
#include "rules/finding.h"
#include "rules/rule_pack.h"
#include "runner/plan/run_plan.h"
#include "runner/plan/run_result.h"
#include "runner/plan/submission_report.h"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kaudit::run {

// run.json's aten_ops from the `ops` messages: `groups` as sent, `banned` the
// recorded ops of the graded shapes (0 .. shapes-1) that stand for a name the
// pack bans (rules/aten_names.h), and `complete` only when the run finished
// and every graded shape's untimed calls (first-case and one per mode) were
// recorded without a gap; else `incomplete` says why. Pure.
evidence::AtenOpsRecord aten_ops_record(const std::vector<evidence::AtenOpsGroup>& groups, int shapes,
                                        const std::vector<std::string>& modes, bool finished,
                                        const rules::RulePack& pack);

// One banned-aten-op finding per banned op in the record.
std::vector<rules::Finding> banned_aten_op_findings(const evidence::AtenOpsRecord& record, const std::string& solution);

// run.json's state_dict from the `state_dict` messages, by shape: `status`
// is failed when any shape's load failed, not applicable when the format
// loads none, else loaded. None when no shape's model was made.
std::optional<evidence::StateDictRecord> state_dict_record(const std::map<int, evidence::StateDictShape>& by_shape);

// Both records, and the findings, into the result.
void judge_aten_ops(const RunPlan& plan, const SubmissionReport& report, int shapes, RunResult& result);

}  // namespace kaudit::run
