// The families of runtime findings judged from one shape's probe evidence:
// each in its own file under runner/judge/findings/ with the catalog entries
// of the ids it owns, listed once in runner/judge/findings/finding_list.def.
#pragma once

#include "rules/finding_info.h"
#include "runner/judge/findings/shape_judge.h"

#include <vector>

namespace kaudit::run {

#define KAUDIT_RUNTIME_FINDING(name)    \
  void judge_##name(ShapeJudge& judge); \
  std::vector<rules::FindingInfo> name##_catalog();
#include "runner/judge/findings/finding_list.def"
#undef KAUDIT_RUNTIME_FINDING

struct RuntimeFindingFamily {
  const char* name;
  void (*judge)(ShapeJudge&);
  // The catalog entries of the ids this family owns; an id that several
  // families report (work-skipped-on-repeat) is owned by one of them.
  std::vector<rules::FindingInfo> (*catalog)();
};

// In finding_list.def's order.
const std::vector<RuntimeFindingFamily>& runtime_finding_families();

// Every family's catalog entries, in the list's order.
std::vector<rules::FindingInfo> runtime_family_catalog();

}  // namespace kaudit::run
