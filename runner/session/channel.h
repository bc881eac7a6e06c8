// Drives one child of a run over its channel: messages until the handler
// says stop, the channel closes, or a deadline passes (the process group is
// then killed). Malformed messages (unparsable, of an unknown event, with a
// field of the wrong type: runner/session/channel_message.h) never reach the handler;
// they are kept, never fatal.
#pragma once

#include "runner/session/channel_message.h"
#include "runner/process/child_process.h"
#include "runner/plan/run_result.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace kaudit::run {

struct Outcome {
  bool timed_out = false;
  bool stopped = false;  // by the watch (drive's `watch`)
  bool closed = false;
  std::vector<std::string> bad_messages;  // at most 20
};

// `on_message` returns < 0 to stop, 0 to keep the deadline, > 0 for a new
// timeout in seconds from now. The time the handler takes (the runner's own
// work, waiting for the device) moves a kept deadline on: it is not the
// child's. `watch`, asked about once a second (whether the child is silent
// or talking), returns < 0 to end the run before its deadline (the process
// group is killed then too), else the seconds it held the child stopped,
// which move the deadline on.
template <typename Handler, typename Watch>
Outcome drive(Child& child, Speaker speaker, double first_timeout_s, Handler&& on_message, Watch&& watch) {
  Outcome out;
  auto deadline = clock_type::now() + std::chrono::milliseconds(static_cast<long long>(first_timeout_s * 1e3));
  auto next_watch = clock_type::now() + std::chrono::seconds(1);
  for (;;) {
    if (clock_type::now() >= next_watch) {
      const double held_s = watch();
      if (held_s < 0) {
        out.stopped = true;
        child.kill_group();
        return out;
      }
      deadline += std::chrono::milliseconds(static_cast<long long>(held_s * 1e3));
      next_watch = clock_type::now() + std::chrono::seconds(1);
    }
    const auto look = std::min(deadline, next_watch);
    ChannelEvent ev = child.next(look);
    if (ev.kind == ChannelEvent::timeout && look < deadline) continue;
    if (ev.kind == ChannelEvent::timeout) {
      out.timed_out = true;
      child.kill_group();
      return out;
    }
    if (ev.kind == ChannelEvent::closed) {
      out.closed = true;
      return out;
    }
    std::string why = ev.kind == ChannelEvent::bad_message ? "not JSON: " + ev.text
                                                            : malformed_message(ev.body, speaker);
    double next = 0;
    const auto handling = clock_type::now();
    if (why.empty()) {
      try {
        next = on_message(ev.body);
      } catch (const nlohmann::json::exception& e) {  // a field deeper than the schema reaches
        why = std::string("unreadable: ") + e.what();
      }
    }
    if (!why.empty()) {
      if (out.bad_messages.size() < 20) out.bad_messages.push_back(why.substr(0, 300));
      continue;
    }
    if (next < 0) return out;
    if (next == 0) deadline += clock_type::now() - handling;
    if (next > 0) deadline = clock_type::now() + std::chrono::milliseconds(static_cast<long long>(next * 1e3));
  }
}

template <typename Handler>
Outcome drive(Child& child, Speaker speaker, double first_timeout_s, Handler&& on_message) {
  return drive(child, speaker, first_timeout_s, std::forward<Handler>(on_message), [] { return 0.0; });
}

inline std::string tail(const std::string& s, std::size_t n) { return s.size() > n ? s.substr(s.size() - n) : s; }

}  // namespace kaudit::run
