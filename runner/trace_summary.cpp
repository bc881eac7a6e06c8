#include "runner/trace_summary.h"

#include "runner/probe_findings.h"

#ifdef KAUDIT_HAVE_TRACE_MODEL
#include "tracer/call_summary.h"
#include "tracer/families.h"
#include "tracer/trace.h"
#endif

#include <algorithm>
#include <map>

namespace kaudit::runner {
using json = nlohmann::json;

#ifndef KAUDIT_HAVE_TRACE_MODEL
json summarize_trace(const std::filesystem::path&, long, const std::string&, std::vector<rules::Finding>&) {
  return {{"status", "unavailable"}, {"reason", "kaudit was built without the trace model"}};
}
#else
json summarize_trace(const std::filesystem::path& dir, long pid, const std::string& solution,
                     std::vector<rules::Finding>& findings) {
  json out = {{"status", "ok"}};
  tracer::Trace trace;
  try {
    trace = tracer::load_journal_dir(dir.string());
  } catch (const std::exception& e) {
    return {{"status", "failed"}, {"reason", e.what()}};
  }
  const tracer::Process* proc = nullptr;
  for (const auto& p : trace.processes)
    if (p.pid == pid) proc = &p;
  if (!proc) return {{"status", "failed"}, {"reason", "no journal from the submission's process"}};
  out["subscribed"] = proc->subscribed;
  out["complete"] = proc->complete();
  json notes = json::array();
  for (const auto& n : proc->notes)
    if (n.level != "info" && notes.size() < 50) notes.push_back(n.level + ": " + n.text);
  out["notes"] = notes;
  if (!proc->subscribed) {
    out["status"] = "failed";
    out["reason"] = "CUPTI did not accept the tracer's subscription";
    return out;
  }
  const auto summaries = tracer::summarize_calls(*proc, tracer::Families::builtin());

  // Groups: (phase, shape, mode).
  struct Group {
    std::vector<double> kernels, gpu_ms, own_share;
    std::size_t calls = 0, empty = 0, late = 0, graph_launches = 0;
    std::map<std::string, double> library_ms;
  };
  std::map<std::tuple<std::string, std::string, std::string>, Group> groups;
  json outside = nullptr;
  for (const auto& s : summaries) {
    if (s.call == 0) {
      outside = {{"kernels", s.kernels}, {"gpu_ms", s.gpu_ns / 1e6}};
      continue;
    }
    auto& g = groups[{s.phase, s.shape, s.mode}];
    ++g.calls;
    g.kernels.push_back(static_cast<double>(s.kernels));
    g.gpu_ms.push_back(s.gpu_ns / 1e6);
    g.own_share.push_back(s.own_share());
    if (s.kernels == 0 && s.transfers == 0) ++g.empty;
    g.late += s.late_kernels;
    g.graph_launches += s.graph_launches;
    for (const auto& [lib, b] : s.libraries) g.library_ms[lib] += b.gpu_ns / 1e6;
  }
  auto median = [](std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  json gdocs = json::array();
  for (const auto& [key, g] : groups) {
    const auto& [phase, shape, mode] = key;
    gdocs.push_back({{"phase", phase},
                     {"shape", shape},
                     {"mode", mode},
                     {"calls", g.calls},
                     {"median_kernels", median(g.kernels)},
                     {"median_gpu_ms", median(g.gpu_ms)},
                     {"median_own_share", median(g.own_share)},
                     {"calls_without_gpu_work", g.empty},
                     {"late_kernels", g.late},
                     {"graph_launches", g.graph_launches},
                     {"library_gpu_ms", g.library_ms}});
    if (phase != "timed") continue;
    if (g.late > 0)
      findings.push_back(make_probe_finding(
          "gpu-work-outside-timing", solution, "shape " + shape + ", " + mode,
          "On shape " + shape + " (" + mode + ") " + std::to_string(g.late) +
              " kernels launched by timed calls were still running after the call's end event."));
    if (g.empty > 0) {
      // Only an offence when the same shape's correctness calls did work.
      const auto c = groups.find({"correctness", shape, ""});
      if (c != groups.end() && median(c->second.kernels) > 0)
        findings.push_back(make_probe_finding(
            "no-kernels-in-timed-call", solution, "shape " + shape + ", " + mode,
            "On shape " + shape + " " + std::to_string(g.empty) + " of " + std::to_string(g.calls) + " timed " +
                mode + " calls launched no GPU work, while its correctness calls launched kernels."));
    }
  }
  out["groups"] = gdocs;
  out["outside_calls"] = outside;
  return out;
}
#endif

}  // namespace kaudit::runner
