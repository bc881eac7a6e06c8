#include "run/verify_timing.h"

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
            {"contended_calls", contended_calls}};
  if (unverified) j["unverified"] = *unverified;
  return j;
}

ClockCheck check_against_clock(const std::vector<TimedCall>& all_calls, double slack_ms) {
  ClockCheck c;
  std::vector<TimedCall> calls;
  for (const auto& call : all_calls)
    if (call.contended)
      ++c.contended_calls;
    else
      calls.push_back(call);
  if (!all_calls.empty() && calls.size() * 2 < all_calls.size()) {
    c.unverified = "other processes' work filled every core during " + std::to_string(c.contended_calls) + " of " +
                   std::to_string(all_calls.size()) + " calls: the runner's clock cannot check the reported times";
    return c;
  }
  std::vector<double> reported, brackets, unexplained;
  for (const auto& call : calls) {
    reported.push_back(call.ms);
    brackets.push_back(call.bracket_ms);
    unexplained.push_back(call.bracket_ms - call.ms);
  }
  c.median_ms = median(reported);
  c.median_bracket_ms = median(brackets);
  c.median_unexplained_ms = median(unexplained);
  if (calls.empty()) return c;
  const double allowed = std::max(slack_ms, kClockSlackRatio * c.median_ms);
  if (c.median_unexplained_ms > allowed)
    c.forged = "the harness reported a median of " + ms_text(c.median_ms) + " a call, but the runner's clock saw " +
               ms_text(c.median_bracket_ms) + " from starting each call to its report: " +
               ms_text(c.median_unexplained_ms) + " unaccounted for at the median call (at most " + ms_text(allowed) +
               " is overhead)";
  else if (c.median_ms > c.median_bracket_ms + slack_ms)
    c.forged = "the harness reported a median of " + ms_text(c.median_ms) + " a call, longer than the " +
               ms_text(c.median_bracket_ms) + " the runner's clock saw around it";
  return c;
}

}  // namespace kaudit::run
