// The trace side of `kaudit run --trace`: reads the tracer's journals of the
// submission's process (tracer/trace.h), summarises each marked call
// (tracer/call_summary.h) per shape and mode, and adds the trace-backed
// findings (gpu-work-outside-timing, no-kernels-in-timed-call,
// timer-read-in-call). Built only
// where the trace model is (KAUDIT_HAVE_TRACE_MODEL); elsewhere it says so.
#pragma once

#include "evidence/run_trace.h"
#include "rules/finding.h"
#include "rules/rule_pack.h"

#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace kaudit::run {

// With a rule pack, kernels of library launchers whose names match its
// banned kernel patterns during timed calls become banned-library-kernel,
// and timed calls with no kernel of the submission's own no-authored-kernel-ran.
// With `export_dir`, the whole trace (trace.json) and its Chrome/Perfetto
// form (trace.chrome.json) are written there.
// `timed_ms`: what the harness's events measured for each timed call, by
// (shape, mode), in call order; a timed call that kept the GPU busy clearly
// longer than its events measured had work outside the timed interval.
// `reference_dir`: the journals of the reference's process, whose marked
// expected-output calls tell, per shape, what the problem itself spends on
// glue (library kernels the pack does not ban); the submission's unbanned
// library kernels may spend as much per call (times the pack's
// thresholds.reference_glue_allowance) before they count as the library
// doing the work (trace.reference_glue, trace.authored_share).
using TimedCallTimes = std::map<std::pair<std::string, std::string>, std::vector<double>>;
evidence::TraceRecord summarize_trace(const std::filesystem::path& journal_dir, long submission_pid,
                                      const std::string& solution, std::vector<rules::Finding>& findings,
                                      const rules::RulePack* pack = nullptr,
                                      const std::filesystem::path& export_dir = {},
                                      const TimedCallTimes& timed_ms = {},
                                      const std::filesystem::path& reference_dir = {});

}  // namespace kaudit::run
