// What the submission's harness reported in a run, as the session collected
// it (runner/session/submission_session.h) and the judges read it.
#pragma once

#include "evidence/run_aten_ops.h"
#include "evidence/run_state_dict.h"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kaudit::run {

// One timed call as the runner saw it: the time the harness reported, and
// the runner's own clock from its "go" to the report (docs/runner.md).
struct TimedCall {
  double ms = 0;          // as the harness reported it
  double bracket_ms = 0;  // as the runner's clock saw it, from "go" to the report
  // Other processes' runnable tasks filled every core when the report came
  // (looked at only for a call whose clock left more unexplained than the
  // overhead allowed): the clock says nothing about the call then.
  bool contended = false;
  // How long the harness's main thread waited, runnable, for a CPU between
  // "go" and the report (runner/process/machine_load.h); none where it cannot be read.
  std::optional<double> waited_ms = std::nullopt;
};

// What the submission's harness reported, for the later steps.
struct SubmissionReport {
  std::map<std::pair<int, int>, nlohmann::json> outputs;      // (shape, case) -> output entries
  std::map<std::pair<int, int>, std::vector<int>> mutated;    // (shape, case) -> inputs changed by the call
  std::map<std::pair<int, int>, std::string> case_digests;    // (shape, case) -> a seeded case's inputs_digest
  std::map<std::pair<int, int>, nlohmann::json> raised;       // (shape, case) -> {type, message}: the call raised
  std::map<int, nlohmann::json> correctness_counts;           // shape -> the harness's output checks
  std::map<int, nlohmann::json> stream_order;                 // shape -> {outputs, differing}
  std::map<std::pair<int, std::string>, nlohmann::json> timings;  // (shape, mode) -> timing message
  std::map<std::pair<int, std::string>, std::vector<TimedCall>> timed_calls;  // (shape, mode) -> calls in order
  // The mode's null calls, before its timed ones: the harness's work around a
  // call with no call in it (SubmissionSession::on_null_timed).
  std::map<std::pair<int, std::string>, std::vector<TimedCall>> null_calls;
  std::vector<std::string> tampered;    // what the harness found replaced (`tampered`)
  std::vector<evidence::AtenOpsGroup> aten_ops;  // `ops` messages (runner/judge/aten_ops.h)
  std::map<int, evidence::StateDictShape> state_dict;  // shape -> its `state_dict` message
  std::vector<std::string> violations;  // messages out of protocol: malformed, out of order, forged
  nlohmann::json error;  // the harness's error message, or null
  bool done = false;     // the harness said every call was made
  // Its device memory's peaks as its own process reported them with "done"
  // (RunResult::device_memory): the submission's word, never evidence for a verdict.
  std::map<std::string, double> device_memory;
  long pid = 0;          // the submission's process id (for its trace)
};

}  // namespace kaudit::run
