#include "runner/judge/verify_timing.h"

#include <algorithm>
#include <cstdio>

namespace kaudit::run {
using json = nlohmann::json;

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string ms_text(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g ms", ms);
  return buf;
}

}  // namespace

json ClockCheck::to_json() const {
  json j = {{"median_reported_ms", median_ms},
            {"median_runner_clock_ms", median_bracket_ms},
            {"median_unexplained_ms", median_unexplained_ms},
            {"contended_calls", contended_calls},
            {"excused_wait_ms", excused_wait_ms}};
  if (median_null_overhead_ms) j["median_null_overhead_ms"] = *median_null_overhead_ms;
  if (unverified) j["unverified"] = *unverified;
  return j;
}

ClockCheck check_against_clock(const std::vector<TimedCall>& all_calls, double slack_ms,
                               const std::vector<TimedCall>& null_calls) {
  ClockCheck c;
  double null_overhead = 0;
  if (!null_calls.empty()) {
    std::vector<double> overhead;
    for (const auto& n : null_calls) overhead.push_back(n.bracket_ms - n.ms);
    c.median_null_overhead_ms = median(overhead);
    null_overhead = std::clamp(*c.median_null_overhead_ms, 0.0, kNullOverheadCapMs);
  }
  std::vector<double> reported, brackets, unexplained;
  int left_out = 0;
  for (const auto& call : all_calls) {
    // On a busy machine the harness's own wait for a CPU is no work of the
    // submission's; where that wait cannot be read, the call says nothing.
    double excused = 0;
    if (call.contended) {
      ++c.contended_calls;
      if (!call.waited_ms) {
        ++left_out;
        continue;
      }
      excused = std::max(0.0, *call.waited_ms);
    }
    c.excused_wait_ms += excused;
    reported.push_back(call.ms);
    brackets.push_back(call.bracket_ms);
    unexplained.push_back(call.bracket_ms - call.ms - excused);
  }
  if (!all_calls.empty() && reported.size() * 2 < all_calls.size()) {
    c.unverified = "other processes' work filled every core during " + std::to_string(left_out) + " of " +
                   std::to_string(all_calls.size()) +
                   " calls, and how long the harness waited for a CPU could not be read: the runner's clock cannot "
                   "check the reported times";
    return c;
  }
  c.median_ms = median(reported);
  c.median_bracket_ms = median(brackets);
  c.median_unexplained_ms = median(unexplained);
  if (reported.empty()) return c;
  const double allowed = std::max(slack_ms + null_overhead, kClockSlackRatio * c.median_ms);
  if (c.median_unexplained_ms > allowed)
    c.forged = "the harness reported a median of " + ms_text(c.median_ms) + " a call, but the runner's clock saw " +
               ms_text(c.median_bracket_ms) + " from starting each call to its report: " +
               ms_text(c.median_unexplained_ms) + " unaccounted for at the median call (at most " + ms_text(allowed) +
               " is overhead" + (null_overhead > 0 ? ", " + ms_text(null_overhead) + " of it what the harness's null calls took" : "") +
               (c.excused_wait_ms > 0 ? ", after the harness's waiting for a CPU on a busy machine was excused)" : ")");
  else if (c.median_ms > c.median_bracket_ms + slack_ms)
    c.forged = "the harness reported a median of " + ms_text(c.median_ms) + " a call, longer than the " +
               ms_text(c.median_bracket_ms) + " the runner's clock saw around it";
  return c;
}

}  // namespace kaudit::run
