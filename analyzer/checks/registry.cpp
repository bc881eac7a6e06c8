#include "analyzer/checks/registry.h"

#include "analyzer/checks/factories.h"

namespace kaudit::analyzer {

const std::vector<std::unique_ptr<Check>>& all_checks() {
  static const std::vector<std::unique_ptr<Check>> checks = [] {
    std::vector<std::unique_ptr<Check>> v;
    // --- checks (one line each) ---
    v.push_back(make_banned_call_check());
    v.push_back(make_dynamic_code_check());
    v.push_back(make_cuda_graph_check());
    v.push_back(make_output_cached_on_identity_check());
    v.push_back(make_call_count_dependent_check());
    v.push_back(make_harness_sniffing_check());
    v.push_back(make_monkeypatching_check());
    v.push_back(make_foreign_file_access_check());
    v.push_back(make_shape_hardcoded_check());
    v.push_back(make_self_timing_check());
    v.push_back(make_side_stream_or_thread_check());
    v.push_back(make_fallback_to_banned_check());
    v.push_back(make_precision_lowered_check());
    v.push_back(make_l2_persistence_check());
    v.push_back(make_no_authored_kernel_check());
    v.push_back(make_reference_resubmitted_check());
    v.push_back(make_disguised_output_check());
    return v;
  }();
  return checks;
}

const Check* find_check(std::string_view id) {
  for (const auto& c : all_checks())
    if (c->info().id == id) return c.get();
  return nullptr;
}

const CheckInfo& analysis_incomplete_info() {
  static const CheckInfo info{
      "analysis-incomplete",
      rules::Category::suspicious,
      rules::Confidence::high,
      kPython | kCxx,
      "part of the submission could not be analysed",
      "The analyzer could not read some of the submission: a file that is binary or unreadable, bytes "
      "that are not UTF-8, a syntax error, or embedded C++/CUDA that does not compile or includes headers "
      "that do not exist. Whatever could be read was still analysed, but findings may be missing for the "
      "rest, so a clean static result is not evidence of a clean submission.",
      "Open the file at the given line and look at what the message names; try `python -m py_compile` on "
      "the file or compile the embedded source with nvcc."};
  return info;
}

}  // namespace kaudit::analyzer
