#include "evidence/run_checks.h"

#include "evidence/run_aten_ops.h"
#include "evidence/run_input_probes.h"
#include "evidence/run_trace.h"

#include <algorithm>

namespace kaudit::evidence {
using json = nlohmann::json;

namespace {

const json& member(const json& j, const char* key) {
  static const json none;
  return j.is_object() && j.contains(key) ? j[key] : none;
}

// Every shape's timing entry satisfies `has`.
template <class Has>
bool every_shape(const json& run, Has has) {
  const json& timing = member(run, "timing");
  if (!timing.is_array() || timing.empty()) return false;
  for (const auto& t : timing)
    if (!has(t)) return false;
  return true;
}

// The mode timed the shape and its sampled outputs were all checked right.
bool mode_checked(const json& entry, const char* mode) {
  const json& m = member(member(entry, "modes"), mode);
  return m.is_object() && m.value("n", 0) > 0 && m.value("samples_passed", false);
}

}  // namespace

std::set<std::string> runtime_checks_made(const json& run) {
  std::set<std::string> made;
  if (!run.is_object() || run.value("result", "") != "correct") return made;
  const bool trace_whole =
      trace_record_from_json(member(run, "trace")).complete.value_or(false) && !run.contains("trace_incomplete");
  if (trace_whole)
    made.insert({"banned-library-kernel", "no-authored-kernel-ran", "library-does-the-work", "gpu-work-outside-timing",
                 "timer-read-in-call", "no-kernels-in-timed-call"});
  const AtenOpsRecord ops = aten_ops_record_from_json(member(run, "aten_ops"));
  if (ops.complete) made.insert("banned-aten-op");
  const bool fresh = every_shape(run, [](const json& t) { return mode_checked(t, "fresh"); });
  if (every_shape(run, [](const json& t) { return mode_checked(t, "rewrite"); }))
    made.insert("output-cached-on-identity");
  if (fresh) made.insert("speedup-vanishes-with-fresh-inputs");
  // On a GPU the trace holds fresh calls against bench calls; on the CPU the
  // ATen op record does (runner/judge/ops_skipped_on_repeat.h).
  const bool ops_measured = ops.complete && run.value("device", "") == "cpu" &&
                            std::all_of(ops.groups.begin(), ops.groups.end(), measured);
  if (fresh && (trace_whole || ops_measured)) made.insert("work-skipped-on-repeat");
  if (every_shape(run, [](const json& t) { return mode_checked(t, "bench"); })) made.insert("correct-only-untimed");
  // The off-grid probe judged sizes next to the graded ones, none refused.
  const InputProbesRecord probes = input_probes_record_from_json(member(run, "input_probes"));
  if (probes.judged && !probes.off_grid.shapes.empty() && probes.off_grid.rejected.empty())
    made.insert("shape-hardcoded");
  if (every_shape(run, [](const json& t) { return member(t, "stream_order").is_object(); }))
    made.insert("output-not-ready-on-return");
  return made;
}

}  // namespace kaudit::evidence
