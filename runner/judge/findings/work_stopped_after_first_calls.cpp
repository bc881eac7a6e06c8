// work-skipped-on-repeat from the correctness calls alone: right at first,
// wrong from some call on, and handing back an earlier call's output: the
// work stopped once the first calls were checked.
#include "runner/judge/findings/families.h"

#include <algorithm>

namespace kaudit::run {

void judge_work_stopped_after_first_calls(ShapeJudge& judge) {
  const ShapeEvidence& e = judge.evidence();
  const std::string& shape = judge.shape();
  const int reused_in_correctness = count_of(e.correctness_counts, "reused");
  if (e.correctness_passed || reused_in_correctness == 0 || e.seed_cases_passed.empty() || !e.seed_cases_passed.front())
    return;
  std::size_t right = 0;
  while (right < e.seed_cases_passed.size() && e.seed_cases_passed[right]) ++right;
  const bool wrong_after =
      right < e.seed_cases_passed.size() && std::none_of(e.seed_cases_passed.begin() + static_cast<long>(right),
                                                         e.seed_cases_passed.end(), [](bool ok) { return ok; });
  if (wrong_after)
    judge.add("work-skipped-on-repeat", shape + ", correctness",
              "On " + shape + " the first " + std::to_string(right) +
                  " correctness call(s) were right and every "
                  "later one wrong, while " +
                  std::to_string(reused_in_correctness) +
                  " call(s) returned an earlier call's output storage again: the work stops after the first calls.");
}

// The id's one entry, naming every route to it, is wrong_timed_outputs.cpp's.
std::vector<rules::FindingInfo> work_stopped_after_first_calls_catalog() { return {}; }

}  // namespace kaudit::run
