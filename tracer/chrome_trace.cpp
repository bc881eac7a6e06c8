#include "tracer/chrome_trace.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

namespace kaudit::tracer {
namespace {

using nlohmann::json;

std::string call_label(const Call& c) {
  std::string label = c.phase.empty() ? "call" : c.phase;
  label += " #" + std::to_string(c.index);
  if (!c.shape.empty()) label += " " + c.shape;
  if (!c.mode.empty()) label += " (" + c.mode + ")";
  return label;
}

std::string human_bytes(uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024.0 && u < 3) {
    v /= 1024.0;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return buf;
}

}  // namespace

std::string short_kernel_name(const Kernel& kernel) {
  std::string name = kernel.display_name();
  if (kernel.demangled.empty()) return name;
  if (name.rfind("void ", 0) == 0) name.erase(0, 5);
  // Cut at the first '<' or '(' that is not part of "(anonymous namespace)".
  for (size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '<') return name.substr(0, i);
    if (name[i] == '(') {
      if (name.compare(i, 21, "(anonymous namespace)") == 0) {
        i += 20;
        continue;
      }
      return name.substr(0, i);
    }
  }
  return name;
}

namespace {

// The earliest timestamp in the trace (0 when it has none).
uint64_t earliest_time(const Trace& trace) {
  uint64_t t0 = std::numeric_limits<uint64_t>::max();
  auto seen = [&](uint64_t t) {
    if (t != 0) t0 = std::min(t0, t);
  };
  for (const Process& p : trace.processes) {
    for (const Kernel& k : p.kernels) seen(k.start);
    for (const Transfer& t : p.transfers) seen(t.start);
    for (const Launch& l : p.launches) seen(l.enter);
    for (const Call& c : p.calls) seen(c.begin);
  }
  return t0 == std::numeric_limits<uint64_t>::max() ? 0 : t0;
}

// What a kernel's event shows when selected: its library, family and launch.
json kernel_args(const Process& p, const Kernel& k, const Families& families) {
  const Launcher* who = p.launcher(k.launcher);
  const LibraryMatch lib = families.library_of(who != nullptr ? who->object : "", k.display_name());
  json args = {{"kernel", k.display_name()},
               {"library", lib.name},
               {"role", to_string(lib.role)},
               {"family", families.family_of(k.display_name())},
               {"call", k.call},
               {"corr", k.corr},
               {"grid", k.grid},
               {"block", k.block},
               {"registers", k.regs},
               {"shared_memory", k.smem_static + k.smem_dynamic}};
  if (who != nullptr) args["launcher"] = who->object;
  if (k.graph != 0) {
    args["graph"] = k.graph;
    args["graph_node"] = k.graph_node;
  }
  return args;
}

// The harness's calls on the host's "calls" row; a call that never ended
// reaches to the process's last kernel.
template <typename ToUs>
void add_call_events(const Process& p, int host, const ToUs& us, json& events) {
  uint64_t last = 0;
  for (const Kernel& k : p.kernels) last = std::max(last, k.end);
  for (const Call& c : p.calls) {
    if (c.begin == 0) continue;
    const uint64_t end = c.end != 0 ? c.end : std::max(last, c.begin);
    events.push_back({{"ph", "X"},
                      {"cat", "call"},
                      {"name", call_label(c)},
                      {"pid", host},
                      {"tid", 0},
                      {"ts", us(c.begin)},
                      {"dur", us(end) - us(c.begin)},
                      {"args", {{"call", c.id}, {"phase", c.phase}, {"shape", c.shape}, {"mode", c.mode},
                                {"index", c.index}, {"ended", c.end != 0}}}});
  }
}

}  // namespace

json chrome_trace(const Trace& trace, const Families& families) {
  // Times are microseconds from the earliest timestamp in the trace.
  const uint64_t t0 = earliest_time(trace);
  auto us = [&](uint64_t t) { return t > t0 ? static_cast<double>(t - t0) / 1000.0 : 0.0; };

  json events = json::array();
  auto meta = [&](const char* what, int pid, long tid, const std::string& name) {
    json e = {{"ph", "M"}, {"name", what}, {"pid", pid}, {"args", {{"name", name}}}};
    if (tid >= 0) e["tid"] = tid;
    events.push_back(std::move(e));
  };
  uint64_t flow_id = 1;

  for (size_t i = 0; i < trace.processes.size(); ++i) {
    const Process& p = trace.processes[i];
    const int host = static_cast<int>(i + 1) * 1000;
    auto gpu_pid = [&](uint32_t device) { return host + 1 + static_cast<int>(device); };
    std::string exe = p.exe.substr(p.exe.rfind('/') == std::string::npos ? 0 : p.exe.rfind('/') + 1);
    meta("process_name", host, -1, "host: " + exe + " (pid " + std::to_string(p.pid) + ")");
    events.push_back({{"ph", "M"}, {"name", "process_sort_index"}, {"pid", host}, {"args", {{"sort_index", host}}}});
    meta("thread_name", host, 0, "calls");
    std::set<uint32_t> devices;
    std::set<std::pair<uint32_t, uint32_t>> streams;
    std::set<uint32_t> threads;

    add_call_events(p, host, us, events);
    std::map<uint32_t, const Launch*> launch_by_corr;
    for (const Launch& l : p.launches) {
      launch_by_corr[l.corr] = &l;
      if (l.enter == 0) continue;
      threads.insert(l.tid);
      json args = {{"corr", l.corr}, {"call", l.call}};
      if (const Launcher* who = p.launcher(l.launcher); who != nullptr) args["launcher"] = who->object;
      if (l.captured) args["captured"] = true;
      events.push_back({{"ph", "X"},
                        {"cat", "api"},
                        {"name", l.api},
                        {"pid", host},
                        {"tid", l.tid},
                        {"ts", us(l.enter)},
                        {"dur", l.exit > l.enter ? us(l.exit) - us(l.enter) : 0.0},
                        {"args", std::move(args)}});
    }
    auto flow = [&](uint32_t corr, int pid, uint32_t stream, uint64_t start) {
      auto it = launch_by_corr.find(corr);
      if (it == launch_by_corr.end() || it->second->enter == 0 || start == 0) return;
      const Launch& l = *it->second;
      const uint64_t id = flow_id++;
      const uint64_t mid = l.exit > l.enter ? l.enter + (l.exit - l.enter) / 2 : l.enter;
      events.push_back({{"ph", "s"}, {"cat", "launch"}, {"name", "launch"}, {"id", id}, {"pid", host},
                        {"tid", l.tid}, {"ts", us(mid)}});
      events.push_back({{"ph", "f"}, {"bp", "e"}, {"cat", "launch"}, {"name", "launch"}, {"id", id},
                        {"pid", pid}, {"tid", stream}, {"ts", us(start)}});
    };

    for (const Kernel& k : p.kernels) {
      if (k.start == 0 || k.end == 0) continue;
      devices.insert(k.device);
      streams.insert({k.device, k.stream});
      events.push_back({{"ph", "X"},
                        {"cat", "kernel"},
                        {"name", short_kernel_name(k)},
                        {"pid", gpu_pid(k.device)},
                        {"tid", k.stream},
                        {"ts", us(k.start)},
                        {"dur", us(k.end) - us(k.start)},
                        {"args", kernel_args(p, k, families)}});
      flow(k.corr, gpu_pid(k.device), k.stream, k.start);
    }
    for (const Transfer& t : p.transfers) {
      if (t.start == 0 || t.end == 0) continue;
      devices.insert(t.device);
      streams.insert({t.device, t.stream});
      std::string name = t.kind + (t.copy_kind.empty() ? "" : " " + t.copy_kind) + " " + human_bytes(t.bytes);
      events.push_back({{"ph", "X"},
                        {"cat", t.kind},
                        {"name", std::move(name)},
                        {"pid", gpu_pid(t.device)},
                        {"tid", t.stream},
                        {"ts", us(t.start)},
                        {"dur", us(t.end) - us(t.start)},
                        {"args", {{"bytes", t.bytes}, {"call", t.call}, {"corr", t.corr}}}});
      flow(t.runtime_corr != 0 && launch_by_corr.count(t.runtime_corr) ? t.runtime_corr : t.corr,
           gpu_pid(t.device), t.stream, t.start);
    }
    for (uint32_t d : devices) {
      std::string name = "GPU " + std::to_string(d);
      for (const Device& dev : p.devices)
        if (dev.id == d && !dev.name.empty()) name += " " + dev.name;
      meta("process_name", gpu_pid(d), -1, name + " (pid " + std::to_string(p.pid) + ")");
      events.push_back(
          {{"ph", "M"}, {"name", "process_sort_index"}, {"pid", gpu_pid(d)}, {"args", {{"sort_index", gpu_pid(d)}}}});
    }
    for (const auto& [d, s] : streams) meta("thread_name", gpu_pid(d), s, "stream " + std::to_string(s));
    for (uint32_t tid : threads) meta("thread_name", host, tid, "thread " + std::to_string(tid));
  }
  return {{"traceEvents", std::move(events)},
          {"displayTimeUnit", "ns"},
          {"otherData", {{"source", "kaudit trace"}, {"trace_schema", "kaudit-trace/1"}}}};
}

}  // namespace kaudit::tracer
