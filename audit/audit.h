// `kaudit audit`: analyzer, runner (with the tracer on a GPU) and verdict
// engine over a batch of submissions, one evidence folder each, resumable
// (docs/audit.md). `kaudit verdict` recomputes verdicts from saved evidence.
#pragma once

#include "audit/items.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kaudit::audit {

struct AuditOptions {
  std::filesystem::path out_dir = "kaudit-audit";
  std::string device = "auto";  // auto | cuda | cpu | none (static analysis only)
  int jobs = 1;
  std::vector<std::string> gpus;  // CUDA device ids handed out to jobs round-robin
  bool force = false;             // redo what is already done
  bool trace = true;              // with the tracer when running on CUDA
  std::string python;             // interpreter for runs (default: the runner's)
  std::optional<int> trials;      // timed calls per mode, for quick batches
  // The graded shapes each run runs: all, or smallest (run::RunOptions::shapes).
  // Not smallest by default, on the CPU either: a submission that cheats
  // only on another shape would pass.
  std::string shapes = "all";
  bool quiet = false;
  // Seconds without a line after which a heartbeat names the runs in
  // progress (audit/progress.h); 0: none.
  double heartbeat_s = 30;
  bool unsafe_no_sandbox = false;  // run submissions without the sandbox (runner/process/sandbox.h)
  long max_tasks = 4096;           // tasks each child may have at once (runner/process/task_limit.h)
  // Free space a run needs under the workspace root ($TMPDIR or /tmp) to
  // start beside others; short of it, it waits to run alone (audit/environment.h).
  double min_free_gib = 2.0;
  // Host memory a run needs available to start beside others (it waits
  // otherwise); negative: an eighth of the machine's memory.
  double min_free_memory_gib = -1;
  // The device memory runs side by side may need together (audit/device_memory.h);
  // negative: the device's own (nvidia-smi), 0: runs are not held back for it.
  double device_memory_gib = -1;
  // CI outputs written beside the reports when not empty (--sarif, --junit;
  // docs/report-format.md): SARIF 2.1.0 with every verdict's findings, JUnit XML.
  std::filesystem::path sarif, junit;
  // Audit only this slice of the items (kaudit audit --shard I/N); the
  // summary records it and the whole batch's inputs (`shard`, docs/audit.md).
  std::optional<Shard> shard;
};

// Runs the batch (or, with `options.shard`, its shard), writes OUT_DIR/<key>/{submission,analysis,run,verdict}.json,
// OUT_DIR/summary.json and the reports; returns the summary document.
// Holds OUT_DIR/.kaudit.lock meanwhile and refuses a folder that holds
// another batch unless `force` (audit/batch_folder.h); on SIGINT or SIGTERM
// stops every run and throws AuditInterrupted (audit/interrupt.h).
nlohmann::json run_audit(const std::vector<AuditItem>& items, const AuditOptions& options);

// Recomputes OUT_DIR/<key>/verdict.json from the evidence beside it (or,
// when `dir` holds summary.json, for every submission of the batch, then the
// summary and the reports, under the batch's lock). Returns the verdict or
// the summary; throws, changing nothing, when summary.json is corrupt.
nlohmann::json recompute_verdicts(const std::filesystem::path& dir);

// The outcomes `kaudit audit --fail-on` accepts: integrities and results.
const std::set<std::string>& fail_on_outcomes();
// Parses `--fail-on`'s comma list; throws std::invalid_argument on a name
// that is not one of fail_on_outcomes().
std::set<std::string> parse_fail_on(const std::string& list);
// Whether any submission of a summary (its `submissions[]`) has an
// integrity or a result in `fail_on`: the audit's exit status 1.
bool any_fails(const nlohmann::json& summary, const std::set<std::string>& fail_on);

// The fields of summary.json that follow from its `submissions[]`: `counts`,
// `expectations` (dropped when no entry has an expectation) and `gpu` (the
// GPU named by the first CUDA run.json under `out_dir`, else "available"
// when `gpu_here`, else null).
void complete_summary(nlohmann::json& summary, const std::filesystem::path& out_dir, bool gpu_here);

// Whether a CUDA GPU is usable here (nvidia-smi lists one).
bool gpu_available();

}  // namespace kaudit::audit
