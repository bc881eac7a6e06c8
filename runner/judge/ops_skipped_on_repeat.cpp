#include "runner/judge/ops_skipped_on_repeat.h"

#include "runner/judge/probe_findings.h"

#include <algorithm>

namespace kaudit::run {

namespace {

// As the trace's rule (trace_summary.cpp): an op run on a fifth of the
// elements or less does not do its work, and what is skipped must be at
// least half of the fresh call's work.
constexpr long long kHollow = 5;

// The shape's group of `phase`, when it can vouch for its call and has the measures.
const evidence::AtenOpsGroup* measured_group(const evidence::AtenOpsRecord& record, int shape,
                                             const std::string& phase) {
  for (const auto& g : record.groups)
    if (g.shape == shape && g.phase == phase) return evidence::measured(g) ? &g : nullptr;
  return nullptr;
}

std::string percent(long long part, long long whole) {
  return std::to_string(static_cast<int>(100.0 * static_cast<double>(part) / static_cast<double>(whole) + 0.5)) + "%";
}

}  // namespace

std::vector<rules::Finding> ops_skipped_on_repeat(const evidence::AtenOpsRecord& record, int shapes,
                                                  const std::string& solution) {
  std::vector<rules::Finding> out;
  for (int i = 0; i < shapes; ++i) {
    const evidence::AtenOpsGroup* fresh = measured_group(record, i, "fresh");
    const evidence::AtenOpsGroup* bench = measured_group(record, i, "bench");
    // Inputs of another size (a problem that draws its lengths) do other work.
    if (fresh == nullptr || bench == nullptr || *fresh->input_elements != *bench->input_elements) continue;
    long long fresh_ns = 0, skipped_ns = 0;
    std::vector<std::pair<long long, std::string>> skipped;  // (fresh ns, op)
    for (const auto& [name, f] : *fresh->work) {
      fresh_ns += f.ns;
      const auto count = bench->ops.find(name);
      const auto b = bench->work->find(name);
      const bool ran = count != bench->ops.end() && count->second > 0 && b != bench->work->end() &&
                       b->second.elements * kHollow >= f.elements;
      if (ran) continue;
      skipped_ns += f.ns;
      skipped.emplace_back(f.ns, name);
    }
    if (skipped.empty() || fresh_ns <= 0 || skipped_ns * 2 < fresh_ns) continue;
    std::sort(skipped.rbegin(), skipped.rend());
    std::string names;
    for (std::size_t k = 0; k < skipped.size() && k < 3; ++k)
      names += (k ? ", " : "") + skipped[k].second + " (" + percent(skipped[k].first, fresh_ns) + ")";
    const std::string shape = "shape " + std::to_string(i);
    out.push_back(make_probe_finding(
        "work-skipped-on-repeat", solution, shape + ", the untimed bench call against the untimed fresh call",
        "On " + shape + " an untimed call on fresh inputs spent " + percent(skipped_ns, fresh_ns) +
            " of its ATen op time in ops that an untimed call on the benchmark's repeated inputs did not run, or "
            "ran on under a fifth of the elements: " +
            names + ". The work is skipped when the inputs repeat (aten_ops.groups, phases fresh and bench)."));
  }
  return out;
}

}  // namespace kaudit::run
