// The reference's process in a run: it imports the problem, reports the
// shapes, generates every correctness input (its turn on the device), and
// later computes the expected outputs for the inputs the submission's calls
// saw. One method per channel event.
#pragma once

#include "runner/process/child_process.h"
#include "runner/judge/input_probes.h"
#include "runner/plan/run_plan.h"
#include "runner/plan/run_result.h"
#include "runner/process/workspace.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <set>
#include <memory>
#include <string>
#include <utility>

namespace kaudit::run {

class ReferenceSession {
 public:
  ReferenceSession(const RunPlan& plan, const Workspace& ws, RunResult& result, DeviceAccess& device);
  // Starts the process (it imports while the submission starts beside it).
  void start();
  // Import, shapes and inputs; false when the reference failed (the error is
  // in the result and the process is gone).
  bool prepare();
  // Expected outputs for `jobs` ([{id, shape, inputs}], or a timed sample's
  // [{id, shape, seed, mode, base}] drawn again from its seed), by job id; an empty
  // `jobs` only tells the process to stop. Failures set the result's error.
  // `on_expected(id, outputs)` hears of each as it comes in (the output
  // checks begin then: runner/judge/output_checks.h).
  using ExpectedListener = std::function<void(const std::string& id, const nlohmann::json& outputs)>;
  std::map<std::string, nlohmann::json> expected_outputs(const nlohmann::json& jobs,
                                                         const ExpectedListener& on_expected = nullptr);
  // The reference's own process ended (a signal, the OOM killer, an exit)
  // before it answered every job: a fault of the machine, never evidence
  // against the submission, so nothing may be judged from the comparison.
  bool died_before_answering() const { return died_; }
  void finish();

  const nlohmann::json& shapes() const { return shapes_; }
  // (shape, case) -> the input entries the reference wrote, or {seed} for a
  // case each process draws from its seed (large, reproducible inputs).
  const std::map<std::pair<int, int>, nlohmann::json>& inputs() const { return inputs_; }
  // shape -> what the reference itself does to its inputs ({changes_inputs, aliases_input}).
  const std::map<int, nlohmann::json>& habits() const { return habits_; }
  // Graded shapes whose inputs one seed draws bit for bit again: their timed
  // fresh and rewrite calls are checked on inputs this process draws again
  // from the runner's seeds, never on files the submission's process wrote.
  const std::set<int>& reproducible_shapes() const { return reproducible_; }
  // Expected-output job id -> the fingerprint of the inputs it drew from a
  // seed (the harness's inputs_digest), to hold against the submission's.
  const std::map<std::string, std::string>& input_digests() const { return input_digests_; }
  // The input probes it made: off-grid shapes, skipped sizes, probe cases.
  const ProbeInventory& probes() const { return probes_; }

 private:
  double on_message(const nlohmann::json& m);
  double on_shapes(const nlohmann::json& m);
  double on_habits(const nlohmann::json& m);
  double on_probe(const nlohmann::json& m);
  void write_config() const;
  std::string failure_reason(bool timed_out);

  const RunPlan& plan_;
  const Workspace& ws_;
  RunResult& result_;
  DeviceAccess& device_;
  DeviceTurns::Turn turn_;  // shared, while it generates inputs or expected outputs
  std::unique_ptr<Child> child_;
  nlohmann::json shapes_ = nlohmann::json::array();
  std::map<std::pair<int, int>, nlohmann::json> inputs_;
  std::map<int, nlohmann::json> habits_;
  std::set<int> reproducible_;
  ProbeInventory probes_;
  std::map<std::string, nlohmann::json> expected_;
  std::map<std::string, std::string> input_digests_;
  nlohmann::json error_;
  bool have_shapes_ = false, generated_ = false, checked_ = false;
  bool died_ = false;
  bool inputs_over_budget_ = false;  // the input generation outlasted the set-up budget
  // Seconds by part of the process's start ("hello"), the input generation
  // ("generated") and the expected outputs ("done"), for their phase records.
  std::map<std::string, double> import_parts_, inputs_parts_, expected_parts_;
  double waited_for_device_s_ = 0;   // of it, given way to runs that time
};

}  // namespace kaudit::run
