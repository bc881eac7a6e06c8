// The reference's process in a run: it imports the problem, reports the
// shapes, generates every correctness input (its turn on the device), and
// computes the expected outputs for the inputs the submission's calls saw,
// in the sandbox beside those calls. One method per channel event.
#pragma once

#include "runner/process/child_process.h"
#include "runner/session/channel.h"
#include "runner/judge/input_probes.h"
#include "runner/plan/run_plan.h"
#include "runner/plan/run_result.h"
#include "runner/process/workspace.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace kaudit::run {

// The check jobs waiting for the reference's processes, under one lock: the
// first process's own, and the timed samples' (ids "t_s..."), which a helper
// process takes while it works and the first takes once no more jobs come.
// Shared by a run's reference sessions.
struct ReferenceJobs {
  std::mutex mutex;
  std::condition_variable queued;
  std::vector<nlohmann::json> own, samples;  // batches
  bool closing = false;                      // no more jobs come: each thread ends once it has none
  bool helper = false;                       // a helper takes the samples (it has not failed)
};

class ReferenceSession {
 public:
  // `helper_of`: this session is a second reference process beside that one
  // (docs/runner.md, "The reference's helper"): it imports the problem and
  // answers the timed samples' jobs it takes from the first's queue, nothing
  // else; its process is not traced.
  ReferenceSession(const RunPlan& plan, const Workspace& ws, RunResult& result, DeviceAccess& device,
                   ReferenceSession* helper_of = nullptr);
  ~ReferenceSession();  // a thread still sending batches is stopped with the process
  ReferenceSession(const ReferenceSession&) = delete;
  ReferenceSession& operator=(const ReferenceSession&) = delete;
  // Starts the process (it imports while the submission starts beside it).
  void start();
  // Import, shapes and inputs; false when the reference failed (the error is
  // in the result and the process is gone).
  bool prepare();
  // The expected outputs come in batches of check jobs ([{id, shape,
  // inputs}], or a timed sample's [{id, shape, seed, mode, base}] drawn
  // again from its seed). `on_expected(id, outputs)` hears of each as it
  // comes in, on the thread that reads it (the output checks begin then:
  // runner/judge/output_checks.h); set it before the first batch.
  using ExpectedListener = std::function<void(const std::string& id, const nlohmann::json& outputs)>;
  void listen(ExpectedListener on_expected) { listener_ = std::move(on_expected); }
  // In the sandbox, where the submission's process cannot see exp/, the
  // expected outputs are computed beside its calls: a thread sends each
  // batch queued (queue_expected, from any thread) as soon as the process
  // is free, in shared turns of the device, so that a timing mode (an
  // exclusive turn) waits only for the job in progress.
  void compute_beside();
  void queue_expected(nlohmann::json jobs);
  // No more jobs come: the thread of compute_beside ends once the jobs it
  // may take are done (a helper's, when the first's is closed).
  void close_beside(const nlohmann::json& last_jobs);
  // A helper's: the jobs it was given and answered with an expected output,
  // and those it was given and did not (raised on, or its process failed):
  // the first process answers those again. Read after expected_outputs.
  const std::map<std::string, nlohmann::json>& answered() const { return expected_; }
  nlohmann::json unanswered() const;
  // The last jobs: every batch is waited for, the process is told to stop,
  // and every expected output comes back by job id. Failures set the
  // result's error. No job ever sent only tells the process to stop.
  std::map<std::string, nlohmann::json> expected_outputs(const nlohmann::json& last_jobs);
  // The submission gave back nothing to compare: the batches under way are
  // of no use, and the process is stopped now rather than after them (its
  // device time is another run's). expected_outputs then returns nothing.
  void abandon_expected();
  // The reference's own process ended (a signal, the OOM killer, an exit)
  // before it answered every job: a fault of the machine, never evidence
  // against the submission, so nothing may be judged from the comparison.
  bool died_before_answering() const { return died_; }
  // Jobs the reference raised on, by id: why ("Type: message"). Read once
  // expected_outputs has returned.
  const std::map<std::string, std::string>& failed_jobs() const { return failed_; }
  // A batch of jobs failed as a whole (timed out, raised outside a job, or
  // the process ended): the jobs it left unanswered have no failure of their own.
  bool stopped_answering() const { return batch_failed_; }
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
  double on_batch_message(const nlohmann::json& m);
  bool run_batch(const nlohmann::json& jobs);  // false when the process failed in it
  void send_queued();                          // the thread of compute_beside
  void take_jobs();                            // its batches, until none is left for it
  bool await_ready();                          // a helper's import, before its first batch
  void report_expected_failure();
  void write_config() const;
  std::filesystem::path config_path() const;
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
  // The expected outputs' batches: the thread sending them (compute_beside)
  // alone drives the process until expected_outputs joins it; the queue is
  // shared under queue_mutex_, and the batches' phases wait in batch_phases_
  // so that result_ is written from the run's thread only.
  ExpectedListener listener_;
  std::thread beside_;
  ReferenceSession* helper_of_;              // non-null: this is a helper
  std::shared_ptr<ReferenceJobs> jobs_;      // the first session's, shared with its helper
  bool abandoned_ = false;                   // under jobs_->mutex
  std::atomic<bool> ready_ = false;          // a helper's "ready" came
  clock_type::time_point started_at_{};      // its process's start
  nlohmann::json sent_ = nlohmann::json::array();  // a helper's jobs, as sent
  int batches_ = 0;
  bool batch_over_ = false, batch_failed_ = false;
  Outcome last_batch_;
  std::map<std::string, double> batch_parts_;
  int batch_known_ = 0;  // the batch's jobs answered from outputs computed while making the inputs
  std::vector<evidence::RunPhase> batch_phases_;
  std::map<std::string, nlohmann::json> expected_;
  std::map<std::string, std::string> failed_;  // expected_failed: id -> why
  std::map<std::string, std::string> input_digests_;
  nlohmann::json error_;
  bool have_shapes_ = false, generated_ = false;
  bool died_ = false;
  bool inputs_over_budget_ = false;  // the input generation outlasted the set-up budget
  // Seconds by part of the process's start ("hello") and the input
  // generation ("generated"), for their phase records.
  std::map<std::string, double> import_parts_, inputs_parts_;
  double waited_for_device_s_ = 0;   // of it, given way to runs that time
};

}  // namespace kaudit::run
