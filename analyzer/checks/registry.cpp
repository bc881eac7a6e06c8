#include "analyzer/checks/registry.h"

#include "analyzer/checks/factories.h"

namespace kaudit::analyzer {

const std::vector<std::unique_ptr<Check>>& all_checks() {
  static const std::vector<std::unique_ptr<Check>> checks = [] {
    std::vector<std::unique_ptr<Check>> v;
    // The list lives in check_list.def: one KAUDIT_CHECK line a check.
#define KAUDIT_CHECK(name) v.push_back(make_##name##_check());
#include "analyzer/checks/check_list.def"
#undef KAUDIT_CHECK
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
