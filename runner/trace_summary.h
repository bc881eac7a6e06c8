// The trace side of `kaudit run --trace`: reads the tracer's journals of the
// submission's process (tracer/trace.h), summarises each marked call
// (tracer/call_summary.h) per shape and mode, and adds the trace-backed
// findings (gpu-work-outside-timing, no-kernels-in-timed-call). Built only
// where the trace model is (KAUDIT_HAVE_TRACE_MODEL); elsewhere it says so.
#pragma once

#include "rules/finding.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace kaudit::runner {

nlohmann::json summarize_trace(const std::filesystem::path& journal_dir, long submission_pid,
                               const std::string& solution, std::vector<rules::Finding>& findings);

}  // namespace kaudit::runner
