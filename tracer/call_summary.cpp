#include "tracer/call_summary.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace kaudit::tracer {

double CallSummary::own_share() const {
  return gpu_ns == 0 ? 0.0 : static_cast<double>(own_ns) / static_cast<double>(gpu_ns);
}

namespace {

// Foreign work: kernels of other calls (or none) overlapping a call's
// interval. Kernels are sorted by start; only those starting within the
// longest kernel's duration before the call can overlap it.
void count_foreign_kernels(const Process& process, std::vector<CallSummary>& out) {
  uint64_t longest = 0;
  for (const Kernel& k : process.kernels) longest = std::max(longest, k.duration());
  for (CallSummary& s : out) {
    if (s.begin == 0 || s.end == 0) continue;
    const uint64_t from = s.begin > longest ? s.begin - longest : 0;
    auto it = std::lower_bound(process.kernels.begin(), process.kernels.end(), from,
                               [](const Kernel& k, uint64_t t) { return k.start < t; });
    for (; it != process.kernels.end() && it->start < s.end; ++it)
      if (it->call != s.call && it->end > s.begin && it->start != 0) ++s.foreign_kernels;
  }
}

// The time the GPU was busy with a call's work: the union of its intervals.
void add_busy_time(CallSummary& s, std::vector<std::pair<uint64_t, uint64_t>>& list) {
  std::sort(list.begin(), list.end());
  s.first_start = list.front().first;
  uint64_t run_start = list.front().first, run_end = list.front().second;
  for (const auto& [a, b] : list) {
    if (a > run_end) {
      s.busy_ns += run_end - run_start;
      run_start = a;
    }
    run_end = std::max(run_end, b);
  }
  s.busy_ns += run_end - run_start;
  s.last_end = run_end;
}

}  // namespace

std::vector<CallSummary> summarize_calls(const Process& process, const Families& families) {
  std::vector<CallSummary> out;
  std::unordered_map<uint32_t, size_t> index_of;
  for (const Call& c : process.calls) {
    CallSummary s;
    s.pid = process.pid;
    s.call = c.id;
    s.phase = c.phase;
    s.shape = c.shape;
    s.mode = c.mode;
    s.index = c.index;
    s.begin = c.begin;
    s.end = c.end;
    index_of[c.id] = out.size();
    out.push_back(std::move(s));
  }
  CallSummary outside;
  outside.pid = process.pid;
  outside.phase = "outside any call";
  bool any_outside = false;
  auto summary_for = [&](uint32_t call) -> CallSummary& {
    if (auto it = index_of.find(call); call != 0 && it != index_of.end()) return out[it->second];
    any_outside = true;
    return outside;
  };

  // GPU intervals per summary, for busy_ns.
  std::unordered_map<CallSummary*, std::vector<std::pair<uint64_t, uint64_t>>> intervals;
  auto add_interval = [&](CallSummary& s, uint64_t start, uint64_t end) {
    if (start != 0 && end > start) intervals[&s].emplace_back(start, end);
  };
  std::unordered_set<uint32_t> recorded;
  for (const Kernel& k : process.kernels) {
    recorded.insert(k.corr);
    CallSummary& s = summary_for(k.call);
    add_interval(s, k.start, k.end);
    const Launcher* launcher = process.launcher(k.launcher);
    const LibraryMatch lib = families.library_of(launcher != nullptr ? launcher->object : "", k.display_name());
    const uint64_t ns = k.duration();
    ++s.kernels;
    s.gpu_ns += ns;
    (lib.role == Role::own ? s.own_ns : lib.role == Role::library ? s.library_ns : s.unknown_ns) += ns;
    Bucket& lb = s.libraries[lib.name];
    ++lb.count;
    lb.gpu_ns += ns;
    Bucket& fb = s.families[families.family_of(k.display_name())];
    ++fb.count;
    fb.gpu_ns += ns;
    s.streams.insert(k.stream);
    if (k.graph != 0) ++s.graph_kernels;
    if (s.call != 0 && s.end != 0 && k.end > s.end) {
      ++s.late_kernels;
      s.late_ns += k.end - std::max(s.end, k.start);
    }
  }
  for (const Transfer& t : process.transfers) {
    recorded.insert(t.corr);
    if (t.runtime_corr != 0) recorded.insert(t.runtime_corr);
    CallSummary& s = summary_for(t.call);
    add_interval(s, t.start, t.end);
    ++s.transfers;
    s.transfer_bytes += t.bytes;
    s.transfer_ns += t.duration();
    Bucket& fb = s.families[t.kind == "memset" ? "fill" : "copy"];
    ++fb.count;
    fb.gpu_ns += t.duration();
    s.streams.insert(t.stream);
  }
  std::unordered_map<uint32_t, std::vector<uint32_t>> children;
  for (const Launch& l : process.launches)
    if (l.parent != 0) children[l.parent].push_back(l.corr);
  for (const Launch& l : process.launches) {
    if (l.parent != 0) continue;
    CallSummary& s = summary_for(l.call);
    if (l.api.find("GraphLaunch") != std::string::npos && !l.captured) ++s.graph_launches;
    if (l.api.find("EventElapsedTime") != std::string::npos) ++s.timer_reads;
    if (l.captured || l.status != 0 || l.api.find("Launch") == std::string::npos) continue;
    bool seen = recorded.count(l.corr) != 0;
    for (uint32_t child : children[l.corr]) seen = seen || recorded.count(child) != 0;
    if (!seen) ++s.unrecorded_launches;
  }
  count_foreign_kernels(process, out);
  for (auto& [summary, list] : intervals) add_busy_time(*summary, list);
  if (any_outside) out.push_back(std::move(outside));
  return out;
}

nlohmann::json to_json(const CallSummary& s) {
  auto buckets = [](const std::map<std::string, Bucket>& m) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [name, b] : m) j[name] = {{"count", b.count}, {"gpu_ns", b.gpu_ns}};
    return j;
  };
  return {{"pid", s.pid},
          {"call", s.call},
          {"phase", s.phase},
          {"shape", s.shape},
          {"mode", s.mode},
          {"index", s.index},
          {"begin", s.begin},
          {"end", s.end},
          {"kernels", s.kernels},
          {"gpu_ns", s.gpu_ns},
          {"own_ns", s.own_ns},
          {"library_ns", s.library_ns},
          {"unknown_ns", s.unknown_ns},
          {"own_share", s.own_share()},
          {"libraries", buckets(s.libraries)},
          {"families", buckets(s.families)},
          {"streams", s.streams},
          {"graph_launches", s.graph_launches},
          {"graph_kernels", s.graph_kernels},
          {"transfers", s.transfers},
          {"transfer_bytes", s.transfer_bytes},
          {"transfer_ns", s.transfer_ns},
          {"late_kernels", s.late_kernels},
          {"late_ns", s.late_ns},
          {"busy_ns", s.busy_ns},
          {"first_start", s.first_start},
          {"last_end", s.last_end},
          {"foreign_kernels", s.foreign_kernels},
          {"unrecorded_launches", s.unrecorded_launches},
          {"timer_reads", s.timer_reads}};
}

}  // namespace kaudit::tracer
