// Every finding id kaudit reports, from every producer built into this
// binary (the analyzer's checks when it is built, the runner's probes,
// timing and trace findings).
#pragma once

#include "rules/finding_catalog.h"

namespace kaudit::audit {

const rules::FindingCatalog& finding_catalog();

}  // namespace kaudit::audit
