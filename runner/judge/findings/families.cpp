#include "runner/judge/findings/families.h"

namespace kaudit::run {

const std::vector<RuntimeFindingFamily>& runtime_finding_families() {
  static const std::vector<RuntimeFindingFamily> families = {
  // The list lives in finding_list.def: one KAUDIT_RUNTIME_FINDING line a family.
#define KAUDIT_RUNTIME_FINDING(name) {#name, &judge_##name, &name##_catalog},
#include "runner/judge/findings/finding_list.def"
#undef KAUDIT_RUNTIME_FINDING
  };
  return families;
}

std::vector<rules::FindingInfo> runtime_family_catalog() {
  std::vector<rules::FindingInfo> all;
  for (const auto& family : runtime_finding_families())
    for (const auto& info : family.catalog()) all.push_back(info);
  return all;
}

}  // namespace kaudit::run
