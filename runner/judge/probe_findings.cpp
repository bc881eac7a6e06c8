#include "runner/judge/probe_findings.h"

#include "runner/judge/finding_catalog.h"
#include "runner/judge/findings/families.h"

#include <stdexcept>

namespace kaudit::run {

rules::Finding make_probe_finding(const std::string& id, const std::string& file, const std::string& where,
                                  const std::string& message) {
  const rules::FindingInfo* info = find_runner_finding(id);
  if (!info) throw std::logic_error("finding id not in the runner's catalog: " + id);
  rules::Finding f;
  f.id = id;
  f.source = info->source;
  f.category = info->category;
  f.confidence = info->confidence;
  f.location.file = file;
  f.location.symbol = where;
  f.message = message;
  return f;
}

std::vector<rules::Finding> probe_findings(const ShapeEvidence& e, const std::string& file, FreshThresholds fresh) {
  std::vector<rules::Finding> out;
  ShapeJudge judge(e, file, fresh, out);
  // One family a file (runner/judge/findings/), in finding_list.def's order.
  for (const auto& family : runtime_finding_families()) family.judge(judge);
  return out;
}

}  // namespace kaudit::run
