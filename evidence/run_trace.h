// run.json's `trace` (docs/runner.md) and its rows: `groups[]`, each
// (phase, shape, mode)'s calls summarised; `authored_share[]`, the
// submission's own share of each graded shape's bench calls; and
// `reference_glue`, what the problem's own reference spends on library
// kernels its pack does not ban. The runner's trace step
// (runner/judge/trace_summary.h) writes them and the batch report and the
// checks a run made (run_checks.h) read them, through these types.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kaudit::evidence {

struct TraceGroup {
  std::string phase, shape, mode;
  int calls = 0;
  double median_kernels = 0, median_gpu_ms = 0, median_own_share = 0;
  int calls_without_gpu_work = 0, late_kernels = 0, graph_launches = 0, timer_reads = 0;
  std::map<std::string, double> library_gpu_ms;  // by library, over the group's calls
  // Timed groups only: GPU busy time and what the events measured, medians.
  std::optional<double> median_busy_ms, median_measured_ms;
  std::optional<int> calls_outlasting_timing;
};

struct AuthoredShare {
  std::string shape, mode = "bench";
  double own_ms = 0, library_ms = 0, glue_ms = 0;
  std::optional<double> reference_glue_ms_per_call;  // none: the reference's glue is not known for the shape
  double library_counted_ms = 0;
  double share = 1;  // own / (own + library counted)
};

struct ReferenceGlueShape {
  std::string shape;
  int calls = 0;
  double glue_ms_per_call = 0, banned_ms_per_call = 0;
  int glue_kernels = 0;
  bool counted = false;  // false: no banned kernel ran, so no line between its work and its glue
};

struct ReferenceGlue {
  std::string status = "unavailable";  // ok | unavailable
  std::string reason;
  std::vector<ReferenceGlueShape> shapes;
};

// GPU work of the traced process outside any marked call (imports, builds,
// the harness's own copies).
struct OutsideCalls {
  long long kernels = 0;
  double gpu_ms = 0;
};

// The whole record. Which members are written follows how far the summary
// got: a journal that could not be read has a status and a reason only; a
// process that was found has subscribed, complete and notes; a summary with
// a rule pack has reference_glue and authored_share; a subscribed one has
// groups and outside_calls (null where no work was outside the calls).
struct TraceRecord {
  std::string status = "unavailable";  // ok | failed | unavailable
  std::string reason;                  // failed or unavailable: why
  std::optional<bool> subscribed, complete;
  std::vector<std::string> notes;      // the tracer's warnings and errors, at most 50
  std::vector<std::string> files;      // trace.json and trace.chrome.json, where exported
  std::string export_error;
  std::optional<ReferenceGlue> reference_glue;
  std::optional<std::vector<AuthoredShare>> authored_share;
  std::optional<std::vector<TraceGroup>> groups;
  std::optional<OutsideCalls> outside_calls;  // with groups only

  int calls() const;  // over the groups: the marked calls the journal holds
};

nlohmann::json to_json(const TraceGroup& group);
nlohmann::json to_json(const AuthoredShare& share);
nlohmann::json to_json(const ReferenceGlueShape& shape);
nlohmann::json to_json(const ReferenceGlue& glue);
nlohmann::json to_json(const std::vector<TraceGroup>& groups);
nlohmann::json to_json(const std::vector<AuthoredShare>& shares);
// Read back leniently (run_timing.h): entries that are not objects are
// skipped, and so are authored-share rows without a share.
std::vector<TraceGroup> trace_groups_from_json(const nlohmann::json& rows);
std::vector<AuthoredShare> authored_shares_from_json(const nlohmann::json& rows);
ReferenceGlue reference_glue_from_json(const nlohmann::json& doc);
nlohmann::json to_json(const TraceRecord& trace);
TraceRecord trace_record_from_json(const nlohmann::json& doc);

}  // namespace kaudit::evidence
