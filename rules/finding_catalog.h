// The one list of finding ids: every producer's FindingInfo (the analyzer's
// checks, the runner's probes and timing, the trace), merged by id. An id
// reported by several sources (a cache seen in the source and by a probe)
// is one entry with one FindingInfo per source. `kaudit explain`,
// docs/findings.md, SARIF rules and the verdict policy's test read it.
#pragma once

#include "rules/finding_info.h"

#include <string>
#include <string_view>
#include <vector>

namespace kaudit::rules {

struct CatalogEntry {
  std::string id;
  std::vector<FindingInfo> sources;  // in the order they were added; never empty

  const FindingInfo& first() const { return sources.front(); }
  std::string sources_text() const;    // "static, probe"
  std::string languages_text() const;  // "python, c++/cuda", or empty for runtime-only ids
};

class FindingCatalog {
 public:
  void add(const FindingInfo& info);
  const std::vector<CatalogEntry>& entries() const { return entries_; }
  const CatalogEntry* find(std::string_view id) const;

 private:
  std::vector<CatalogEntry> entries_;
};

}  // namespace kaudit::rules
