#include "audit/finding_catalog.h"

#ifdef KAUDIT_HAVE_ANALYZER
#include "analyzer/checks/registry.h"
#endif
#include "run/finding_catalog.h"

namespace kaudit::audit {

const rules::FindingCatalog& finding_catalog() {
  static const rules::FindingCatalog catalog = [] {
    rules::FindingCatalog c;
#ifdef KAUDIT_HAVE_ANALYZER
    for (const auto& check : analyzer::all_checks()) c.add(check->info());
    c.add(analyzer::analysis_incomplete_info());
#endif
    for (const auto& info : run::runner_finding_catalog()) c.add(info);
    return c;
  }();
  return catalog;
}

}  // namespace kaudit::audit
