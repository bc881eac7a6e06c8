// The harness reports each timed call's time from inside the submission's
// process, where the submission can change it. The runner holds its own
// clock around every call (from its "go" to the report): a time reported
// far below what the runner's clock saw is forged (`timing-forged`).
#pragma once

#include "run/submission_session.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace kaudit::run {

// Time the runner's clock may see around a call beyond the call itself (the
// cache flush, the events, two messages), in the call where it saw the
// least: at least this many milliseconds... The least, because a machine
// busy with other work delays some round trips by milliseconds but not all
// of them, while a forged time hides the work of every call.
inline constexpr double kClockSlackMs = 2.0;
// ...or this many times the reported time, whichever is larger.
inline constexpr double kClockSlackRatio = 4.0;

struct ClockCheck {
  double median_ms = 0;           // as reported
  double median_bracket_ms = 0;   // as the runner's clock saw it
  double median_unexplained_ms = 0;
  double least_unexplained_ms = 0;  // what decides
  std::optional<std::string> forged;  // why the reported times cannot be right
  nlohmann::json to_json() const;
};

// Compares one mode's reported times with the runner's clock.
ClockCheck check_against_clock(const std::vector<TimedCall>& calls);

}  // namespace kaudit::run
