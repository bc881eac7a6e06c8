// The registry of checks; the list itself is analyzer/checks/check_list.def.
#pragma once

#include "analyzer/check.h"

#include <memory>
#include <string_view>
#include <vector>

namespace kaudit::analyzer {

// Every check, in a stable order.
const std::vector<std::unique_ptr<Check>>& all_checks();
// The check with this id, or null.
const Check* find_check(std::string_view id);

// Findings the analyzer itself emits (not a check): a file or part of a file
// that could not be read. Listed here so that `kaudit explain` and SARIF know them.
const CheckInfo& analysis_incomplete_info();

}  // namespace kaudit::analyzer
