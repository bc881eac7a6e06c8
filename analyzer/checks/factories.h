// One factory per check; each is defined in its own file under analyzer/checks/.
#pragma once

#include "analyzer/check.h"

#include <memory>

namespace kaudit::analyzer {

// --- checks (keep in the order of registry.cpp) ---
// (add `std::unique_ptr<Check> make_<name>_check();` lines here)
std::unique_ptr<Check> make_banned_call_check();
std::unique_ptr<Check> make_dynamic_code_check();
std::unique_ptr<Check> make_cuda_graph_check();
std::unique_ptr<Check> make_output_cached_on_identity_check();
std::unique_ptr<Check> make_call_count_dependent_check();

}  // namespace kaudit::analyzer
