#include "tracer/report.h"

#include "tracer/call_summary.h"
#include "tracer/chrome_trace.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

namespace kaudit::tracer {
namespace {

std::string pad(std::string s, size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

std::string percent(uint64_t part, uint64_t whole) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.1f%%", whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole));
  return buf;
}

std::string truncate(std::string s, size_t width) {
  if (s.size() > width) s = s.substr(0, width - 3) + "...";
  return s;
}

struct KernelTotal {
  std::string name, library, family;
  size_t count = 0;
  uint64_t ns = 0;
};

}  // namespace

std::string format_ns(uint64_t ns) {
  char buf[32];
  if (ns >= 1000000000ull) std::snprintf(buf, sizeof buf, "%.3f s", static_cast<double>(ns) / 1e9);
  else if (ns >= 1000000ull) std::snprintf(buf, sizeof buf, "%.3f ms", static_cast<double>(ns) / 1e6);
  else if (ns >= 1000ull) std::snprintf(buf, sizeof buf, "%.1f us", static_cast<double>(ns) / 1e3);
  else std::snprintf(buf, sizeof buf, "%llu ns", static_cast<unsigned long long>(ns));
  return buf;
}

std::string text_summary(const Trace& trace, const Families& families, size_t top_kernels) {
  std::ostringstream out;
  size_t with_cuda = 0;
  for (const Process& p : trace.processes) with_cuda += p.cupti_seen ? 1 : 0;
  out << "kaudit trace: " << trace.processes.size() << (trace.processes.size() == 1 ? " process" : " processes")
      << " traced, " << with_cuda << " used CUDA";
  if (trace.exit_status) out << "; the command exited with status " << *trace.exit_status;
  out << "\n";
  for (const Note& n : trace.notes) out << "  note (" << n.level << "): " << n.text << "\n";

  for (const Process& p : trace.processes) {
    std::string exe = p.exe.substr(p.exe.rfind('/') == std::string::npos ? 0 : p.exe.rfind('/') + 1);
    out << "\nprocess " << p.pid << " " << exe;
    if (p.forked_from != 0) out << " (forked from " << p.forked_from << ")";
    out << ": " << (p.complete() ? "complete" : "INCOMPLETE");
    if (p.cupti_seen) out << ", CUPTI " << p.cupti_api_version;
    out << "\n";
    for (const Note& n : p.notes) out << "  note (" << n.level << "): " << n.text << "\n";
    if (!p.cupti_seen) {
      out << "  CUDA was not initialised in this process\n";
      continue;
    }
    uint64_t gpu_ns = 0;
    std::map<std::string, std::pair<LibraryMatch, std::pair<size_t, uint64_t>>> by_library;
    std::map<std::string, KernelTotal> by_kernel;
    for (const Kernel& k : p.kernels) {
      const Launcher* who = p.launcher(k.launcher);
      const LibraryMatch lib = families.library_of(who != nullptr ? who->object : "", k.display_name());
      gpu_ns += k.duration();
      auto& entry = by_library[lib.name];
      entry.first = lib;
      ++entry.second.first;
      entry.second.second += k.duration();
      // One row per kernel and library: a name can come from two launchers.
      KernelTotal& t = by_kernel[short_kernel_name(k) + '\n' + lib.name];
      t.name = short_kernel_name(k);
      t.library = lib.name;
      t.family = families.family_of(k.display_name());
      ++t.count;
      t.ns += k.duration();
    }
    uint64_t bytes = 0;
    for (const Transfer& t : p.transfers) bytes += t.bytes;
    out << "  " << p.kernels.size() << " kernels, GPU time " << format_ns(gpu_ns) << "; " << p.transfers.size()
        << " copies and fills (" << bytes << " bytes); " << p.launches.size() << " launch API calls\n";
    if (!by_library.empty()) {
      out << "  by library:\n    " << pad("library", 24) << pad("role", 9) << pad("kernels", 9) << pad("GPU time", 12)
          << "share\n";
      std::vector<std::pair<std::string, std::pair<LibraryMatch, std::pair<size_t, uint64_t>>>> rows(by_library.begin(),
                                                                                                     by_library.end());
      std::sort(rows.begin(), rows.end(),
                [](const auto& a, const auto& b) { return a.second.second.second > b.second.second.second; });
      for (const auto& [name, v] : rows)
        out << "    " << pad(truncate(name, 23), 24) << pad(std::string(to_string(v.first.role)), 9)
            << pad(std::to_string(v.second.first), 9) << pad(format_ns(v.second.second), 12)
            << percent(v.second.second, gpu_ns) << "\n";
    }
    if (!by_kernel.empty()) {
      std::vector<KernelTotal> rows;
      for (auto& [_, t] : by_kernel) rows.push_back(t);
      std::sort(rows.begin(), rows.end(), [](const KernelTotal& a, const KernelTotal& b) { return a.ns > b.ns; });
      out << "  top kernels by GPU time:\n    " << pad("count", 8) << pad("GPU time", 12) << pad("library", 16)
          << pad("family", 12) << "kernel\n";
      for (size_t i = 0; i < rows.size() && i < top_kernels; ++i)
        out << "    " << pad(std::to_string(rows[i].count), 8) << pad(format_ns(rows[i].ns), 12)
            << pad(truncate(rows[i].library, 15), 16) << pad(rows[i].family, 12) << truncate(rows[i].name, 80) << "\n";
      if (rows.size() > top_kernels) out << "    ... and " << rows.size() - top_kernels << " more\n";
    }
    const std::vector<CallSummary> calls = summarize_calls(p, families);
    if (!calls.empty() && !p.calls.empty()) {
      out << "  calls:\n    " << pad("call", 34) << pad("kernels", 9) << pad("GPU time", 12) << pad("own", 8)
          << pad("streams", 9) << pad("graphs", 8) << "late\n";
      size_t shown = 0;
      for (const CallSummary& s : calls) {
        if (shown++ == 30) {
          out << "    ... " << calls.size() - 30 << " more calls (see the trace document)\n";
          break;
        }
        std::string label = s.call == 0 ? s.phase : s.phase + " #" + std::to_string(s.index);
        if (!s.shape.empty()) label += " " + s.shape;
        if (!s.mode.empty()) label += " " + s.mode;
        out << "    " << pad(truncate(label, 33), 34) << pad(std::to_string(s.kernels), 9) << pad(format_ns(s.gpu_ns), 12)
            << pad(percent(s.own_ns, s.gpu_ns), 8) << pad(std::to_string(s.streams.size()), 9)
            << pad(std::to_string(s.graph_launches), 8) << s.late_kernels << "\n";
      }
    }
  }
  return out.str();
}

}  // namespace kaudit::tracer
