// The protocol of one run, decided before any process starts: the problem
// and its rules, the interpreter, harness and tracer, the limits, the
// tolerance, the correctness cases. Everything later reads this, nothing
// reads the options again.
#pragma once

#include "evidence/run_settings.h"
#include "rules/problem.h"
#include "rules/rule_pack.h"
#include "runner/plan/run_options.h"
#include "runner/process/sandbox.h"
#include "runner/process/tensor_file.h"
#include "runner/plan/tolerance.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace kaudit::run {

// One correctness call's inputs: a seed, and a scale for numeric stress.
struct CorrectnessCase {
  int seed = 1000;
  double scale = 1.0;
  // "seed"; "bounds": a seed whose integer draws (torch.randint) are pushed to
  // their range's ends, in both processes alike (the harness's Problem.draw);
  // "stress": the first seed's inputs scaled.
  std::string kind;
};

struct RunPlan {
  RunOptions options;
  rules::Problem problem;
  rules::RulePack pack;
  std::filesystem::path python, harness, tracer_lib;  // tracer_lib empty without --trace
  bool cpu = false;
  double setup_s = 0, phase_s = 0, call_s = 0;  // time limits (RunOptions)
  ToleranceTable tolerance;  // per output dtype (runner/plan/tolerance.h)
  int trials = 0;                 // timed calls per mode
  double fresh_over_bench = 0;    // the pack's threshold for this device
  double stress_allowance = 0;    // the pack's stress_mismatch_fraction
  NearMissAllowance near_miss;     // the pack's near_miss_fraction and near_miss_elements
  std::string format;             // "kernelbench" or "kernelbench_hard", as the harness names it
  std::vector<CorrectnessCase> cases;
  Isolation isolation;  // how the children are kept apart (runner/process/sandbox.h)
  // The task limit is RLIMIT_NPROC (no cgroup could hold it; runner/process/task_limit.h).
  // The harness sets it inside the sandbox's user namespace (harness_nproc_limit).
  bool nproc_rlimit = false;
  std::vector<std::filesystem::path> interpreter_dirs;  // what the interpreter reads, mounted read-only

  // RLIMIT_NPROC for the harness to set as its first act, 0 for none. Set
  // before bubblewrap made the run's user namespace, the kernel would bind
  // the namespace's outer count with it too: every process of kaudit's user,
  // every run of the batch, sharing one count.
  long harness_nproc_limit() const { return nproc_rlimit ? options.max_tasks : 0; }
  nlohmann::json cases_json() const;
  // The seeds of the bounds cases: every process that draws from a seed draws
  // these at their bounds (CONFIG "bounds_seeds").
  nlohmann::json bounds_seeds() const;
  // The first correctness case's seed (null without cases): the one draw a
  // generator that ignores its seed keeps as it is (the harness's
  // Problem.gen_inputs permutes the others).
  nlohmann::json first_seed() const { return cases.empty() ? nlohmann::json() : nlohmann::json(cases.front().seed); }
  evidence::RunSettings settings() const;  // run.json's settings
  // A problem file's path inside a working copy of the problem folder.
  std::filesystem::path in_copy(const std::filesystem::path& copy, const std::filesystem::path& file) const;
};

// Validates the options and resolves everything; throws std::runtime_error
// for bad options or an unreadable problem.
RunPlan make_run_plan(const RunOptions& options);

}  // namespace kaudit::run
