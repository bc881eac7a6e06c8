// The trace step of a traced run: the tracer's journal of the submission's
// process summarised (kernels per call, libraries, streams, graph launches)
// into the result, its findings added, and a trace that lacks calls the
// harness made marked incomplete (the verdict is then unverified).
#pragma once

#include "runner/plan/run_plan.h"
#include "runner/plan/run_result.h"
#include "runner/judge/trace_summary.h"
#include "runner/plan/submission_report.h"

#include <filesystem>

namespace kaudit::run {

// `journals`: the submission's, read since its processes ended;
// `reference_journals`: the reference's (its own glue, trace_summary.h), null
// where it was not traced.
void attach_trace(const RunPlan& plan, const SubmissionReport& report, int shapes, JournalRead& journals,
                  JournalRead* reference_journals, RunResult& result);

}  // namespace kaudit::run
