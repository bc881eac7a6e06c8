// The output checks of one run, made while the reference still computes: each
// check starts on a worker thread as soon as its expected output comes in,
// and the judgement reads it back when it gets there. Reading and comparing
// a run's outputs took 4.3 s a run in the H200 gate (fp8: 5.3 s of 55.5 s),
// all of it after the reference's last expected output; now it overlaps the
// reference's work on the device (issue 27). A check not started, or started
// with other arguments, is made when asked: the result is the same either way.
#pragma once

#include "runner/judge/compare.h"
#include "runner/plan/run_plan.h"
#include "runner/plan/submission_report.h"
#include "runner/plan/tolerance.h"

#include <nlohmann/json.hpp>

#include <condition_variable>
#include <deque>
#include <filesystem>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace kaudit::run {

// What a check needs of the submission's side, besides the expected output.
// A numeric-stress case or a distribution probe is measured against its
// shape's first seed case (`baseline_id`, that case's expected-output job):
// it begins once both expected outputs are in.
struct PendingCheck {
  nlohmann::json got;
  double stress_allowance = 0;
  std::string baseline_id;
};

class OutputChecks {
 public:
  OutputChecks(std::filesystem::path xfer, ToleranceTable tolerances, NearMissAllowance near_miss);
  ~OutputChecks();  // finishes the check in progress; the ones not begun are dropped
  OutputChecks(const OutputChecks&) = delete;
  OutputChecks& operator=(const OutputChecks&) = delete;

  // Begins check_outputs(got, expected, ...) on the worker thread.
  void start(const nlohmann::json& got, const nlohmann::json& expected, double stress_allowance);
  // check_outputs(got, expected, ...): the started check's result (waited
  // for), else made now on this thread.
  OutputCheck check(const nlohmann::json& got, const nlohmann::json& expected, double stress_allowance);
  // The same for a check whose stress baseline is the magnitude of the
  // expected output `baseline_id` (`baseline`: its entries, null when it
  // never came): measured once, by whichever thread needs it first.
  OutputCheck check_against(const nlohmann::json& got, const nlohmann::json& expected, const std::string& baseline_id,
                            const nlohmann::json& baseline, double stress_allowance);
  // Whether every tensor of these expected-output entries is finite (entries
  // that cannot be read count as finite, so that nothing is excused on them).
  bool all_finite(const nlohmann::json& entries) const;
  // check_outputs(got, expected, ...) made now, on this thread, with the
  // elements where the expected output is not finite left unchecked.
  OutputCheck check_excusing_non_finite(const nlohmann::json& got, const nlohmann::json& expected) const;
  // An expected output came in (by its job id): its check begins now if
  // the submission's side of it is known (expect), else once it is.
  void arrived(const std::string& id, const nlohmann::json& outputs);
  // Job `id` is job `same_as` over again (a bench call's sample, on the first
  // case's inputs): its expected output is that one's, as it comes in.
  void alias(const std::string& id, const std::string& same_as);
  // Checks to begin as their expected outputs come in (checks_to_start,
  // case_check, sample_checks), added to those asked before; those whose
  // expected output came in already begin now. Called as each call's
  // outputs come back, and once more with every check once the submission
  // is done: a check asked twice is made once.
  void expect(std::map<std::string, PendingCheck> pending);
  // How many checks were started, and how many of those were read back.
  int started() const { return started_count_; }
  int reused() const { return reused_count_; }

 private:
  struct Job {
    nlohmann::json got, expected;
    double stress_allowance = 0;
    std::promise<OutputCheck> result;
    std::string baseline_id;  // the baseline is this expected output's magnitude (`baseline`)
    nlohmann::json baseline;
  };
  OutputCheck run(const Job& job);
  void work();
  void enqueue(const std::string& key, Job job);
  // A pending check whose expected output (and baseline, if it has one) came in begins.
  void begin_if_ready(const PendingCheck& check, const nlohmann::json& expected);
  void arrive(const std::string& id, const nlohmann::json& outputs);  // arrived, aliases aside
  // The magnitude of expected output `id` (0 where it cannot be read), once.
  double magnitude_of(const std::string& id, const nlohmann::json& entries);

  const std::filesystem::path xfer_;
  const ToleranceTable tolerances_;
  const NearMissAllowance near_miss_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> queue_;
  std::map<std::string, std::shared_future<OutputCheck>> results_;  // by the check's arguments
  bool stopping_ = false;
  std::thread worker_;  // started with the first check
  int started_count_ = 0, reused_count_ = 0;
  // Expected outputs matched with their pending checks (arrived, expect).
  std::mutex arrivals_mutex_;
  std::map<std::string, PendingCheck> pending_;
  std::map<std::string, nlohmann::json> arrived_;
  std::multimap<std::string, std::string> aliases_;  // same_as -> id (alias)
  std::mutex magnitudes_mutex_;
  std::map<std::string, double> magnitudes_;  // by expected-output id
};

// A check the judgement will make, by the expected output's job id, that can
// begin as soon as that output comes in: each correctness case of a graded
// shape (judge_correctness), each sampled timed call (judge_timing) and each
// input probe's call (judge_input_probes), with the arguments they pass. A
// stress case or a distribution probe begins once its shape's first seed
// case's output is in too.
std::map<std::string, PendingCheck> checks_to_start(const RunPlan& plan, const SubmissionReport& report,
                                                   int graded_shapes, const std::filesystem::path& xfer);
// The same for one correctness call ...
std::map<std::string, PendingCheck> case_check(const RunPlan& plan, int graded_shapes, int shape, int c,
                                              const nlohmann::json& got);
// ... and for one timing mode's samples.
std::map<std::string, PendingCheck> sample_checks(int shape, const std::string& mode, const nlohmann::json& samples,
                                                 const std::filesystem::path& xfer);

}  // namespace kaudit::run
