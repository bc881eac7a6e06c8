// What a finding id means: its category, default confidence, the source that
// reports it, the languages it reads (static checks) and the text that
// `kaudit explain` and docs/findings.md show. One type for every producer:
// the analyzer's checks, the runner's probes and timing, the trace.
#pragma once

#include "rules/finding.h"

#include <string_view>

namespace kaudit::rules {

// Languages a static check reads (FindingInfo::languages bits).
enum LanguageMask : unsigned { kPython = 1u, kCxx = 2u };

struct FindingInfo {
  std::string_view id;  // stable, kebab-case, documented in docs/findings.md
  Category category;
  Confidence confidence;     // default confidence of its findings
  unsigned languages;        // LanguageMask bits; 0 for runtime findings
  std::string_view summary;      // one line
  std::string_view explanation;  // one paragraph: what it means and why it matters
  std::string_view confirm;      // how a person confirms it by hand
  Source source = Source::static_analysis;
};

}  // namespace kaudit::rules
