// Which runtime checks a run made over every graded call with complete
// evidence (issue 28, item 3): read from run.json, so that a verdict decided
// now and one decided later from the saved document agree. A check that ran
// and stayed silent refutes the static leads it would have confirmed
// (rules::RunFacts::checked).
#pragma once

#include <nlohmann/json.hpp>

#include <set>
#include <string>

namespace kaudit::evidence {

// The runtime finding ids whose check looked at every graded call of a
// correct run: trace checks when the trace is complete, banned-aten-op when
// the op record is, the rewrite, fresh and timed-output checks when every
// shape ran that mode, the stream-order check when every shape has its
// probe, the off-grid shape check when it judged sizes and none was refused.
// Empty for a run that is not correct.
std::set<std::string> runtime_checks_made(const nlohmann::json& run);

}  // namespace kaudit::evidence
