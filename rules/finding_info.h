// What a finding id means, for ids reported by the tracer, the runner's
// probes and timing (the analyzer's checks carry the same in CheckInfo).
// `kaudit explain` and docs/findings.md are made from these.
#pragma once

#include "rules/finding.h"

#include <string_view>
#include <vector>

namespace kaudit::rules {

struct FindingInfo {
  std::string_view id;
  Category category;
  Confidence confidence;
  Source source;
  std::string_view summary;      // one line
  std::string_view explanation;  // one paragraph
  std::string_view confirm;      // how a person confirms it by hand
};

// The runner lists the probe, timing and trace ids it reports in
// runner/finding_catalog.h (trace-backed findings are made there too).
}  // namespace kaudit::rules
