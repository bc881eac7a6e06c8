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
std::unique_ptr<Check> make_harness_sniffing_check();
std::unique_ptr<Check> make_monkeypatching_check();
std::unique_ptr<Check> make_foreign_file_access_check();
std::unique_ptr<Check> make_shape_hardcoded_check();
std::unique_ptr<Check> make_self_timing_check();
std::unique_ptr<Check> make_side_stream_or_thread_check();
std::unique_ptr<Check> make_fallback_to_banned_check();
std::unique_ptr<Check> make_precision_lowered_check();
std::unique_ptr<Check> make_l2_persistence_check();
std::unique_ptr<Check> make_no_authored_kernel_check();
std::unique_ptr<Check> make_reference_resubmitted_check();
std::unique_ptr<Check> make_disguised_output_check();

}  // namespace kaudit::analyzer
