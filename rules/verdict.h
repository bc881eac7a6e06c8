// The verdict engine (DESIGN.md sections 1-2): a pure function from typed
// evidence to a verdict. Deterministic, no GPU, no clock, no files; the
// documents it reads and writes are evidence/'s business.
//
// result:    correct | incorrect | error (from the run) | not-run
// integrity: clean | benchmark-aware | cheat, or not-run / unverified when
//            no completed run exists and nothing static decided: never
//            clean without a run.
#pragma once

#include "rules/finding.h"
#include "rules/rule_pack.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kaudit::rules {

// The caveat a run.json's `isolation` puts on a verdict: reached without the
// sandbox, or in it without a protection this machine could not give (the
// syscall filter, the task limit); none when every protection held or the
// run has no isolation record.
std::optional<std::string> isolation_caveat(const nlohmann::json& isolation);

// What a run contributes to a verdict.
struct RunFacts {
  std::string result;               // correct | incorrect | error
  nlohmann::json error;             // the run's error object ({phase, reason, ...}) or null
  std::string incorrect_reason;     // an incorrect run's first failing check (run.json result_reason)
  std::vector<Finding> findings;    // trace, probe and timing findings
  std::optional<std::string> trace_incomplete;  // a completed run whose trace lacks calls
  // The caveat the run's isolation puts on the verdict (isolation_caveat).
  std::optional<std::string> isolation_weakness;
  // The run failed for the machine, not the submission (a full disk...): the
  // result is infrastructure-error and nothing vouches for the submission.
  std::optional<std::string> infrastructure;
  // Why the run's record of the ATen ops the submission ran (run.json's
  // aten_ops) cannot vouch for its calls: none was made (an older kaudit),
  // or the submission hid ops from it. A static finding that the record
  // confirms (kAtenOpConfirmation in its confirmed_by) and nothing confirmed
  // then leaves the integrity unverified, never clean.
  std::optional<std::string> ops_incomplete;
  // Runtime checks that looked at every graded call of a correct run with
  // complete evidence (evidence::runtime_checks_made): their silence is
  // evidence. A static lead whose confirming ids (confirmed_by) were all
  // checked and none fired is refuted by the run, not left unconfirmed.
  std::set<std::string> checked;
};

// The runtime id of a banned ATen op that ran (runner/judge/aten_ops.h).
inline constexpr const char* kAtenOpConfirmation = "banned-aten-op";

struct VerdictInput {
  std::string submission;
  std::optional<std::vector<Finding>> static_findings;  // nullopt: no analysis
  std::optional<RunFacts> run;                          // nullopt: not run
};

struct Verdict {
  std::string submission;
  std::string result;        // correct | incorrect | error | not-run
  nlohmann::json result_reason;  // the run's error object or null
  std::string integrity;     // clean | benchmark-aware | cheat | unverified | not-run
  std::optional<std::string> integrity_reason;
  std::vector<std::string> reasons;  // one line per deciding finding
  std::vector<std::string> caveats;  // what weakens the evidence (a run without the sandbox)
  std::vector<Finding> deciding, beside;
  // Static leads the run refuted (listed in `beside` too, as info).
  struct Refutation {
    std::string id;
    int line = 0;
    std::vector<std::string> by;  // the runtime checks that ran and found nothing
  };
  std::vector<Refutation> refuted;
  bool had_static = false, had_run = false;
};

// Throws std::runtime_error when the run's result is not one of its three values.
Verdict decide_verdict(const VerdictInput& input, const VerdictPolicy& policy);

}  // namespace kaudit::rules
