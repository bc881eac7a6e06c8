// Every finding id kaudit reports, from every producer built into this
// binary (the analyzer's checks when it is built, the runner's probes,
// timing and trace findings).
#pragma once

#include "rules/finding_catalog.h"

#include <string>
#include <string_view>

namespace kaudit::audit {

const rules::FindingCatalog& finding_catalog();

// What `kaudit explain ID` prints for one entry: the id with its category,
// sources and languages, the summary, the explanation and how to confirm it
// by hand.
std::string explain_text(const rules::CatalogEntry& entry);
// explain_text of `id` (kaudit explain ID, kaudit.explain in Python). Throws
// std::invalid_argument for an id the catalog lacks.
std::string explain(std::string_view id);
// docs/findings.md: `kaudit explain --all --markdown`.
std::string findings_markdown();

}  // namespace kaudit::audit
