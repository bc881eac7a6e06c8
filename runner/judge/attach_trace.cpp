#include "runner/judge/attach_trace.h"

#include "runner/judge/trace_summary.h"

#include <cmath>

namespace kaudit::run {
using json = nlohmann::json;

void attach_trace(const RunPlan& plan, const SubmissionReport& report, int shapes, JournalRead& journals,
                  JournalRead* reference_journals, RunResult& result) {
  const auto since = clock_type::now();
  TimedCallTimes timed_ms;
  for (const auto& [key, t] : report.timings)
    for (const auto& x : t.value("times_ms", json::array()))
      timed_ms[{std::to_string(key.first), key.second}].push_back(x.is_number() ? x.get<double>() : 0.0);
  result.trace = summarize_trace(journals, report.pid, plan.options.solution.string(), result.findings, &plan.pack,
                                 timed_ms, reference_journals);
  const auto rounded = [](double seconds) { return std::round(seconds * 1e4) / 1e4; };
  const JournalRead::Split split = journals.split();
  result.add_phase("runner",
                   {{"phase", "trace"},
                    {"parts", {{"read", rounded(journals.read_seconds())},
                               {"read_wait", rounded(journals.wait_seconds())},
                               {"read_load", rounded(split.load_seconds)},
                               {"read_export", rounded(split.export_seconds)}}},
                    {"journal_mib", std::round(split.bytes / (1 << 20) * 10) / 10}},
                   since);
  // Every call the harness made must be in the trace: a submission that
  // deletes or cuts its own journal (the tracer writes it from inside its
  // process) must not come out clean for want of trace evidence.
  if (!report.done || report.error.is_object()) return;
  const auto n = static_cast<std::size_t>(shapes);
  const std::size_t made = n * plan.cases.size() +
                           n * plan.options.modes.size() * static_cast<std::size_t>(plan.options.warmup + plan.trials);
  const auto traced = static_cast<std::size_t>(result.trace->calls());
  if (result.trace->status != "ok")
    result.trace_incomplete =
        "the trace could not be read: " + (result.trace->reason.empty() ? std::string("unknown") : result.trace->reason);
  else if (traced < made)
    result.trace_incomplete = "the trace holds " + std::to_string(traced) + " of the " + std::to_string(made) +
                              " calls the harness made";
}

}  // namespace kaudit::run
