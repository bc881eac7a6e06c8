// What one run found, built up by the run's steps and written once as
// run.json (schema kaudit-run/1, docs/report-format.md).
#pragma once

#include "evidence/run_aten_ops.h"
#include "evidence/run_correctness.h"
#include "evidence/run_environment.h"
#include "evidence/run_input_probes.h"
#include "evidence/run_phases.h"
#include "evidence/run_settings.h"
#include "evidence/run_state_dict.h"
#include "evidence/run_timing.h"
#include "evidence/run_trace.h"
#include "rules/finding.h"
#include "rules/verdict.h"
#include "runner/process/device_turns.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace kaudit::run {

using clock_type = std::chrono::steady_clock;

struct RunError {
  std::string phase;
  std::string reason;
  nlohmann::json detail;  // null, or {traceback} / {stderr_tail}
};

struct RunResult {
  // What ran: problem {name, dir, format}, solution, device, interpreter, modes, settings.
  nlohmann::json problem;
  std::string solution, device, python;
  std::vector<std::string> modes;
  std::optional<evidence::RunSettings> settings;  // null in run.json for a run that never got a plan
  std::optional<std::string> temp_dir;  // with --keep-temp

  std::optional<RunError> error;          // the first error wins
  std::string result_reason;              // why incorrect
  bool all_correct = false;               // valid once the run completed
  nlohmann::json environment = nlohmann::json::object();  // the reference's hello
  std::optional<nlohmann::json> shapes;   // once the reference reported them
  std::vector<evidence::ShapeCorrectness> correctness;   // per shape
  std::vector<evidence::ShapeTiming> timing;             // per shape
  std::vector<rules::Finding> findings;
  nlohmann::json problem_files = nlohmann::json::array();
  std::vector<evidence::RunPhase> phases;  // where the time went, in order
  // Each shape's first call (builds and JIT compiles happen there). It has
  // the set-up budget, not a call's limit.
  std::vector<evidence::FirstCall> first_calls;
  std::optional<nlohmann::json> submission_process;
  // Set by the audit (audit/environment.h): the environment, not the
  // submission, made the run fail ({cause, attempts, free_bytes}); and the
  // retry it made ({first_cause, attempts, judged}).
  std::optional<evidence::InfrastructureFailure> infrastructure;
  std::optional<evidence::EnvironmentRetry> environment_retry;
  std::optional<evidence::TraceRecord> trace;
  std::optional<std::string> trace_incomplete;
  // What ATen ran in the submission's recorded calls, and the reference's
  // state_dict loaded into its model (runner/judge/aten_ops.h); absent when the run
  // stopped before the submission's calls.
  std::optional<evidence::AtenOpsRecord> aten_ops;
  std::optional<evidence::StateDictRecord> state_dict;
  std::optional<evidence::InputProbesRecord> input_probes;  // off-grid shapes and other distributions (runner/judge/input_probes.h)
  std::optional<nlohmann::json> hardware;  // {name, peak_basis}
  nlohmann::json isolation;                // runner/process/sandbox.h Isolation::to_json
  double seconds = 0;
  clock_type::time_point started = clock_type::now();  // the run's start: phases' began_s count from it
  // The reference computed expected outputs beside the submission's calls:
  // the device was shared with them (audit/environment.h).
  bool expected_beside = false;
  std::optional<double> device_wait_seconds;  // runs sharing a device
  std::optional<nlohmann::json> device_turns;  // and the turns they took: DeviceAccess::turns_json
  // Process (reference, submission) -> its device memory's peaks as torch's
  // allocator saw them (peak_allocated_mib, peak_reserved_mib), as each
  // process reported them. Never evidence for a verdict; the batch's device
  // memory budget learns from them (audit/device_memory.h), where a
  // submission claiming much only makes its own problem's runs wait.
  std::map<std::string, std::map<std::string, double>> device_memory;

  void set_error(const std::string& phase, const std::string& reason, const nlohmann::json& detail = nullptr);
  // One step of `process` ("reference", "submission", "runner") that began at `since`.
  void add_phase(const std::string& process, const nlohmann::json& step, clock_type::time_point since);
  // The same, made without adding it (a step kept aside until its thread is joined).
  evidence::RunPhase phase(const std::string& process, const nlohmann::json& step, clock_type::time_point since) const;
  nlohmann::json to_json() const;
  // What the verdict engine reads of it.
  rules::RunFacts facts() const;
};

// The device's turns for one run: the batch's (RunOptions::device_turns),
// shared with the other runs of its device, or the run's own, between its
// reference's expected outputs and its submission's timing. The time spent
// waiting for them is added up. Both processes' threads take turns through
// it.
class DeviceAccess {
 public:
  DeviceAccess(std::shared_ptr<DeviceTurns> turns, bool shared_with_others)
      : turns_(std::move(turns)), shared_with_others_(turns_ && shared_with_others) {}
  DeviceTurns::Turn take(DeviceTurns::Kind kind);
  // A yield point of untimed work (DeviceTurns::yield_to_timing): the
  // seconds it waited, 0 when nobody was waiting to time.
  double yield_to_timing(DeviceTurns::Turn& turn);
  // The harness needs the device no more until its next yield point (its
  // file work follows: "device_idle"): the turn is given back now, so runs
  // waiting to time need not wait for that work.
  void set_aside(DeviceTurns::Turn& turn);
  // A yield point: a turn set aside is taken again (shared), a shared one
  // yields to timing. The seconds it waited.
  double resume(DeviceTurns::Turn& turn);
  // Whether the run takes turns at all (a timing mode takes an exclusive one).
  bool takes_turns() const { return turns_ != nullptr; }
  // Whether they are shared with other runs (kaudit audit --jobs N).
  bool shared_device() const { return shared_with_others_; }
  // Whether another run of the device waits for an exclusive turn now.
  bool others_waiting_to_time() const { return shared_with_others_ && turns_->exclusive_waiting() > 0; }
  // Between two timing modes of a run that has held `turn` (exclusive)
  // since `since`: once it has held it for `after` while another run of the
  // device waits for any turn, the turn is given back and taken again behind
  // those waiting. One submission's nine slow modes (thousands of kernels a
  // call) held the device alone for 44 s while three runs waited to make
  // their first calls. The seconds it waited to take it again; none when the
  // turn was kept.
  static constexpr std::chrono::seconds kHandOverAfter{5};
  std::optional<double> hand_over_between_modes(DeviceTurns::Turn& turn, clock_type::time_point since,
                                                clock_type::duration after = kHandOverAfter);
  double wait_seconds() const;
  // {exclusive, shared, yields, set_aside, handed_over}: the turns taken,
  // how often a shared one was given back to a run waiting to time, how
  // often one was given back for file work, and how often an exclusive one
  // was given back between timing modes. Each exclusive turn is a hand-over
  // that waits for every other run's next yield point or set-aside.
  nlohmann::json turns_json() const;

 private:
  void waited(double seconds);
  const std::shared_ptr<DeviceTurns> turns_;
  const bool shared_with_others_;
  mutable std::mutex mutex_;  // the counts below
  double wait_s_ = 0;
  int exclusive_taken_ = 0, shared_taken_ = 0, yields_ = 0, set_aside_ = 0, handed_over_ = 0;
};

}  // namespace kaudit::run
