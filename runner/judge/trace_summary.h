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
#include <memory>
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

// The submission's journals read, and with `export_dir` exported, on a thread
// of their own from construction: the runner begins it once the submission's
// processes have ended, beside the reference's last expected outputs, which
// hide the seconds a journal of a million kernels takes to read.
// summarize_trace takes what it read (waiting for it if need be).
class JournalRead {
 public:
  JournalRead(std::filesystem::path journal_dir, long submission_pid, std::filesystem::path export_dir);
  ~JournalRead();  // waits for the thread
  JournalRead(const JournalRead&) = delete;
  JournalRead& operator=(const JournalRead&) = delete;

  void wait();                  // until its thread is done (summarize_trace waits so)
  double read_seconds() const;  // the reading and export, on their thread
  double wait_seconds() const;  // what was still waited for them
  // Where read_seconds went, once its thread is done: the journals' loading
  // (reading and parsing) and the export, and the journals' size.
  struct Split {
    double load_seconds = 0, export_seconds = 0, bytes = 0;
  };
  Split split() const;

  struct State;  // what the thread makes (trace_summary.cpp)
  State& state();

 private:
  std::unique_ptr<State> state_;
};

// `reference_journals`: the reference's, read ahead once its first process
// had answered its own jobs (read again where a journal had not ended then);
// null where it was not traced.
evidence::TraceRecord summarize_trace(JournalRead& journals, long submission_pid, const std::string& solution,
                                      std::vector<rules::Finding>& findings, const rules::RulePack* pack = nullptr,
                                      const TimedCallTimes& timed_ms = {}, JournalRead* reference_journals = nullptr);
// The same, read here (the trace bench, and callers with nothing to overlap).
evidence::TraceRecord summarize_trace(const std::filesystem::path& journal_dir, long submission_pid,
                                      const std::string& solution, std::vector<rules::Finding>& findings,
                                      const rules::RulePack* pack = nullptr,
                                      const std::filesystem::path& export_dir = {},
                                      const TimedCallTimes& timed_ms = {},
                                      const std::filesystem::path& reference_dir = {});

}  // namespace kaudit::run
