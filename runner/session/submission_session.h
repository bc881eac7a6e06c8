// The submission's process in a run: it imports and builds (overlapping the
// reference's input generation where the sandbox keeps it from the
// reference's inputs), then makes every correctness call and every timed
// call the plan asks for, taking turns on the device. One method per channel
// event; what it reported is kept in `SubmissionReport`.
#pragma once

#include "runner/process/child_process.h"
#include "runner/process/machine_load.h"
#include "runner/plan/run_plan.h"
#include "runner/plan/run_result.h"
#include "runner/plan/submission_report.h"
#include "runner/process/workspace.h"
#include "runner/session/channel.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace kaudit::run {

// How long runs waiting to time wait for another run's first call once its
// forward has returned and no build runs (SubmissionSession::holds_back_timers).
constexpr double kStepAsideAfterReturnS = 10;
// ... and for one whose forward has not returned, with no build running.
// Longer than any first call of the corpus without a compiler process (11 s
// on an H100, MoE's autotuning, its compiles included); shorter than a call's
// limit (60 s), which every run of the batch waited behind a kernel that
// never ended (topk's bisection) on an H100: four of them 39 to 62 s, 200 s
// of the batch's run time.
constexpr double kStepAsideWithoutBuildS = 20;

// Null calls per timing mode, after its warm-up (SubmissionSession::on_null_timed).
constexpr int kNullCalls = 5;

class SubmissionSession {
 public:
  SubmissionSession(const RunPlan& plan, const Workspace& ws, RunResult& result, DeviceAccess& device);
  ~SubmissionSession();
  SubmissionSession(const SubmissionSession&) = delete;
  SubmissionSession& operator=(const SubmissionSession&) = delete;
  // Starts the process: it imports and builds, then waits for its inputs.
  // Sandboxed, where it cannot write the reference's inputs, its set-up is
  // driven at once on a thread of its own (set_up_beside_reference), so the
  // solution's import and any build at import overlap the reference's
  // import and input generation; otherwise nothing of the submission runs
  // until run(), after the reference's inputs are sealed.
  void start();
  // Waits for its set-up; then hands it the correctness and timing plan
  // (`stage_config`, a file in the private folder) and drives every call.
  // `samples_per_shape`: how many timed calls of each mode the runner checks.
  // `seeded_shapes`: shapes whose fresh and rewrite samples must name the
  // call's seed (the runner's own) instead of handing over inputs.
  void run(const std::filesystem::path& stage_config, const std::map<std::pair<int, int>, nlohmann::json>& inputs,
           const std::vector<int>& samples_per_shape, const std::set<int>& seeded_shapes);
  // Ends the process, records it in the result and turns how it ended into
  // an error or findings.
  void finish(int shapes, int cases);

  const SubmissionReport& report() const { return report_; }
  // Each output file a call's message named, and each timed sample's input
  // file, stamped as the message came in (runner/process/workspace.h): code
  // in the submission's process that rewrote one after the harness handed
  // it over (a right answer computed outside every timed call, written over
  // the call's output) breaks its seal.
  const FileSeal& handed_files() const { return handed_; }
  // Hears of each timing mode's summary once it holds (its samples are the
  // calls the runner drew, naming the seeds it sent): the reference can
  // begin on them while the submission goes on. Set before run().
  using SamplesListener = std::function<void(int shape, const std::string& mode, const nlohmann::json& samples)>;
  void on_samples(SamplesListener listener) { samples_listener_ = std::move(listener); }
  // Hears of each correctness call's outputs as its message holds (an
  // output check can begin on them once the expected output is in). Set
  // before run().
  using CallListener = std::function<void(int shape, int c, const nlohmann::json& outputs)>;
  void on_call(CallListener listener) { call_listener_ = std::move(listener); }

 private:
  double on_message(const nlohmann::json& m);
  double on_set_up_message(const nlohmann::json& m);
  void join_set_up();
  Outcome set_up_outcome();
  double on_ready();
  double on_turn();
  double on_device_idle();
  double lend_turn_while_building();
  double on_mode_start(const nlohmann::json& m);
  double on_warm_done(const nlohmann::json& m);
  double on_null_timed(const nlohmann::json& m);
  long long next_seed();
  double on_call_ready(const nlohmann::json& m);
  double on_timed(const nlohmann::json& m);
  double on_mode_end(const nlohmann::json& m);
  double on_timing(const nlohmann::json& m);
  double on_ops(const nlohmann::json& m);
  double violation(const std::string& what);
  double on_phase(const nlohmann::json& m);
  double on_correctness_call(const nlohmann::json& m);
  double on_raised_call(const nlohmann::json& m, int shape, int case_index);
  void seal_handed(const nlohmann::json& entries);  // handed_files()
  void end_first_call();
  double on_first_return(const nlohmann::json& m);
  bool holds_back_timers();
  void note_build();
  bool first_call_without_build();
  void end_phase();
  std::string phase_text() const;
  void record_process(const ExitStatus& status);
  void judge_ending(const ExitStatus& status, int shapes, int cases);

  const RunPlan& plan_;
  const Workspace& ws_;
  RunResult& result_;
  DeviceAccess& device_;
  std::unique_ptr<Child> child_;
  const std::map<std::pair<int, int>, nlohmann::json>* inputs_ = nullptr;
  SubmissionReport report_;
  FileSeal handed_;  // handed_files()
  nlohmann::json current_phase_ = {{"phase", "start"}};
  bool ready_ = false;
  clock_type::time_point started_, phase_started_;
  DeviceTurns::Turn turn_;   // shared for its calls; exclusive from its first timing mode to its next yield point
  clock_type::time_point exclusive_since_;  // when turn_ was last taken exclusive
  double timeout_s_ = 0;     // the deadline in force, for the error message
  std::set<std::string> phases_seen_;  // each phase (with its shape and mode) once
  bool first_call_pending_ = false;  // the phase's first call, with the set-up budget, is still running
  bool first_call_returned_ = false;  // ... and its forward returned: what it launched has a call's limit
  bool timed_out_ = false;
  // A first call: the processes there at the phase's start, the CPU time of
  // the run's processes at the last look, when a build was last seen
  // (note_build), how far into its first call the run was stopped for
  // holding runs waiting to time (holds_back_timers), and how long a first
  // call ran with no build before it was timed out (first_call_without_build).
  std::set<int> processes_at_phase_;
  std::map<int, CpuTicks> cpu_ticks_;
  clock_type::time_point build_seen_;
  std::optional<double> stepped_aside_after_s_;
  std::string stepped_aside_why_;  // what the error says of the first call it stopped
  clock_type::time_point returned_at_;  // when the first call's forward returned (on_first_return)
  std::optional<double> no_build_for_s_;
  double first_call_stopped_after_s_ = 0;  // how long that first call ran (first_call_without_build)
  std::set<std::string> build_processes_;  // names of the processes seen as a build, for first_calls
  std::string build_shown_;                // ... as the progress line last showed them (note_build)
  double lent_while_building_s_ = 0;       // the first call's turn lent to timing runs (lend_turn_while_building)
  std::vector<std::string> bad_messages_;
  // The timing protocol: the mode that is open, the modes ended whose
  // summaries are still to come, the call expected next, and which calls
  // the runner checks (drawn when the mode starts, told to the harness one
  // call at a time, after each call returned).
  std::vector<int> samples_per_shape_;
  std::set<int> seeded_shapes_;
  std::map<std::pair<int, std::string>, std::vector<long long>> call_seeds_;  // the seed sent for each timed call
  std::optional<std::pair<int, std::string>> open_mode_;
  std::set<std::pair<int, std::string>> unsummarized_;
  int next_call_ = 0;
  bool warmed_ = false;
  int null_calls_left_ = 0;  // of the open mode's (on_null_timed)
  bool call_running_ = false;
  clock_type::time_point call_started_;
  // The harness's process as the runner's /proc numbers it (found from the
  // id its "hello" gave, before the solution was imported), and its main
  // thread's wait for a CPU when the running call started.
  std::optional<int> harness_process_;
  std::optional<double> waited_before_call_ms_;
  // The channel as /proc shows it in the harness's process: checked once
  // before the solution is imported (where it must be the runner's pipe, or
  // the check is unavailable on this machine), then at every message after
  // (run.json submission_process.channel_checks).
  struct ChannelChecks {
    bool usable = false;
    int checked = 0;
    bool replaced = false;
    int transient = 0;        // readings of another file that the next reading contradicted
    std::string unavailable;  // why the checks could not be made
  } channel_;
  void first_channel_check();
  bool channel_intact();
  std::map<std::pair<int, std::string>, std::set<int>> drawn_;
  std::mt19937_64 rng_{std::random_device{}()};
  bool said_hello_ = false;
  std::map<std::string, double> start_parts_;  // its start by part, as its hello said
  bool violated_ = false;
  // The set-up driven beside the reference (start): until the thread is
  // joined (set_up_outcome) it alone touches the child and this session's
  // state; its phases wait in set_up_phases_ so that result_, which the
  // reference's session writes meanwhile, is written from one thread only.
  // A message past the set-up (out of protocol there) waits in
  // held_message_ for run() to handle.
  std::thread set_up_;
  bool set_up_beside_ = false;
  Outcome set_up_out_;
  std::exception_ptr set_up_error_;
  std::atomic<bool> abandon_set_up_{false};
  bool buffer_phases_ = false;
  std::vector<evidence::RunPhase> set_up_phases_;
  std::optional<nlohmann::json> held_message_;
  SamplesListener samples_listener_;
  CallListener call_listener_;
};

// The correctness and timing plan handed to the submission's harness
// (submission-inputs.json); `l2_bytes` sizes the cache flush between calls.
nlohmann::json stage_config(const RunPlan& plan, const Workspace& ws,
                            const std::map<std::pair<int, int>, nlohmann::json>& inputs,
                            const std::map<int, nlohmann::json>& habits, const std::set<int>& seeded_shapes,
                            int shapes, double l2_bytes);

}  // namespace kaudit::run
