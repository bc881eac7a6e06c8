// One submission through the pipeline, in memory: its static analysis, its
// run, its verdict. The batch folder is written for output and read back
// only to resume (docs/audit.md).
#pragma once

#include "audit/device_memory.h"
#include "audit/environment.h"
#include "audit/items.h"
#include "rules/finding.h"
#include "rules/problem.h"
#include "rules/rule_pack.h"
#include "runner/process/device_turns.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kaudit::audit {

// What the whole batch shares, set up once: the device, the problems and
// their rules (loaded once each), the interpreter and run settings.
struct BatchPlan {
  std::filesystem::path out_dir;
  std::string device;  // cuda | cpu | none (resolved from auto)
  bool force = false;
  bool trace = true;
  std::string python;
  std::optional<int> trials;
  std::string shapes = "all";  // all | smallest
  bool unsafe_no_sandbox = false;
  long max_tasks = 4096;
  std::uintmax_t min_free_bytes = 0;  // free space a run needs under the workspace root (audit/environment.h)
  std::uintmax_t min_free_memory_bytes = 0;  // host memory a run needs available to start beside others
  double device_memory_gib = -1;             // AuditOptions::device_memory_gib
  std::map<std::filesystem::path, rules::Problem> problems;
  std::map<std::filesystem::path, rules::RulePack> packs;

  const rules::Problem* problem_of(const AuditItem& item) const;
  const rules::RulePack& pack_of(const AuditItem& item) const;  // the default pack without a problem
};

// What the static analysis contributed.
struct StaticEvidence {
  std::vector<rules::Finding> findings;
  std::optional<std::vector<std::string>> gpu_toolchains;  // unknown in an analysis.json of an older kaudit
  std::string unreadable;  // why a saved analysis.json could not be read; empty when it could
};

// Stage 1, in order, on one thread: the batch's static analysis, with one
// analyzer per problem made on first use and kept for this batch only.
class StaticStage {
 public:
  explicit StaticStage(const BatchPlan& plan);
  ~StaticStage();
  StaticStage(const StaticStage&) = delete;
  StaticStage& operator=(const StaticStage&) = delete;
  // Writes submission.json and, unless it is there already (and not
  // --force), analysis.json. Returns the analysis, or nothing where the
  // analyzer is not built and none was saved.
  std::optional<StaticEvidence> analyze(const AuditItem& item);

 private:
  struct Analyzers;
  const BatchPlan& plan_;
  std::unique_ptr<Analyzers> analyzers_;
};

// Where a job runs: the CUDA device it is given and the turns it shares.
struct JobSlot {
  std::string gpu;                               // CUDA_VISIBLE_DEVICES, or empty
  std::shared_ptr<run::DeviceTurns> device_turns;  // null: the device to itself
  std::shared_ptr<BatchGate> gate;                 // null: no other runs at once
  // Told each step of a run as it starts (submission key, the step): the
  // progress lines (audit/progress.h).
  std::function<void(const std::string&, const std::string&)> on_phase;
  // Told when its run waits for the rest of the batch to be made again
  // alone: another worker takes this place meanwhile (audit/job_pool.h).
  std::function<void()> lend_place;
  // The device's memory shared by the runs on it (null: not held back for it).
  std::shared_ptr<DeviceMemoryBudget> device_memory;
};

struct SubmissionOutcome {
  nlohmann::json verdict;
  std::string status;  // done | not-run | failed | interrupted (SIGINT/SIGTERM: nothing of its run was written)
  double seconds = 0;  // the run's wall time, or what this audit spent
  std::string error;   // why it failed, for the progress line
};

// Stage 2, on a worker: runs the submission when it can and has not been
// run, then decides its verdict from the evidence in memory.
SubmissionOutcome audit_submission(const AuditItem& item, const std::optional<StaticEvidence>& analysis,
                                   const BatchPlan& plan, const JobSlot& slot);

// Decides a saved submission's verdict from its evidence folder again.
nlohmann::json verdict_from_folder(const std::filesystem::path& dir);

}  // namespace kaudit::audit
