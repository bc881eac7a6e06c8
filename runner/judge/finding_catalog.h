// Every finding id the runner reports (probes and timing), with what it
// means and how to confirm it by hand. `kaudit explain` and docs/findings.md
// list these beside the analyzer's and the tracer's.
#pragma once

#include "rules/finding_info.h"

#include <string_view>
#include <vector>

namespace kaudit::run {

const std::vector<rules::FindingInfo>& runner_finding_catalog();
// nullptr when `id` is not one of the runner's.
const rules::FindingInfo* find_runner_finding(std::string_view id);

}  // namespace kaudit::run
