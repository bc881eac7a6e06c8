// The harness reports each timed call's time from inside the submission's
// process, where the submission can change it. The runner holds its own
// clock around every call (from its "go" to the report): a time reported
// far below what the runner's clock saw is forged (`timing-forged`).
#pragma once

#include "runner/plan/submission_report.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace kaudit::run {

// Time the runner's clock may see around a call beyond the call itself (the
// cache flush, the events, two messages), at the median call: at least this
// many milliseconds on a GPU... The median, because the score is the median
// reported time: a submission that reports some calls truly cannot hide a
// forged median behind them.
inline constexpr double kClockSlackMs = 2.0;
// ...on the CPU, where wall-clock round trips on a loaded machine take
// milliseconds by themselves...
inline constexpr double kClockSlackCpuMs = 10.0;
// ...or this many times the reported time, whichever is larger.
inline constexpr double kClockSlackRatio = 4.0;

// What the mode's null calls showed of the harness's own work around a call
// (SubmissionReport::null_calls: the events, the synchronizes, the messages)
// is allowed on top of the slack, up to this much: on an H100 beside other
// runs it was 2.4 ms a call for whole runs. A submission that slowed the
// null calls down on purpose gains no more than this.
inline constexpr double kNullOverheadCapMs = 5.0;

// The overhead allowed around one call of `ms`.
inline double clock_slack_ms(bool cpu, double ms) {
  return std::max(cpu ? kClockSlackCpuMs : kClockSlackMs, kClockSlackRatio * ms);
}

struct ClockCheck {
  double median_ms = 0;           // as reported
  double median_bracket_ms = 0;   // as the runner's clock saw it
  double median_unexplained_ms = 0;
  std::optional<double> median_null_overhead_ms;  // the null calls' runner clock less their reported time
  int contended_calls = 0;        // other work filled every core (TimedCall::contended)
  double excused_wait_ms = 0;     // the harness's wait for a CPU excused over those calls
  std::optional<std::string> forged;      // why the reported times cannot be right
  std::optional<std::string> unverified;  // why the clock could not check them
  nlohmann::json to_json() const;
};

// Compares one mode's reported times with the runner's clock. A call during
// which the machine was busy with other processes' work is judged with the
// harness's wait for a CPU excused, or left out where that wait is unknown;
// when fewer than half the calls are judged, no comparison is made
// (`unverified`).
// `slack_ms`: kClockSlackMs or kClockSlackCpuMs; `null_calls`: the mode's
// null calls, whose overhead (at most kNullOverheadCapMs) is allowed besides.
ClockCheck check_against_clock(const std::vector<TimedCall>& calls, double slack_ms,
                               const std::vector<TimedCall>& null_calls = {});

}  // namespace kaudit::run
