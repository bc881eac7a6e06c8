// The verdict engine (DESIGN.md sections 1-2): a pure function from
// evidence documents to a verdict document. Deterministic, no GPU, no clock.
//
// result:    correct | incorrect | error (from the run) | not-run
// integrity: clean | benchmark-aware | cheat, or not-run / unverified when
//            no completed run exists and nothing static decided: never
//            clean without a run.
#pragma once

#include "rules/finding.h"
#include "rules/rule_pack.h"

#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace kaudit::rules {

inline constexpr const char* kVerdictSchema = "kaudit-verdict/1";

// How evidence of each source counts; the `verdict` section of a rule pack
// (docs/rules.md). Runtime and probe evidence outrank static evidence.
struct VerdictPolicy {
  // Static ids whose mere presence is the offence (harness tampering...):
  // they decide alone at or above static_min_confidence.
  std::set<std::string> static_decides;
  // Static id -> runtime ids that confirm it; a confirmed static finding is
  // listed among the deciding ones beside its confirmation.
  std::map<std::string, std::vector<std::string>> confirmed_by;
  Confidence static_min_confidence = Confidence::high;
  Confidence runtime_min_confidence = Confidence::medium;
};

// The pack's `verdict` section, or the default pack's when it has none.
VerdictPolicy verdict_policy_of(const RulePack& pack);

struct Evidence {
  std::string submission;
  const nlohmann::json* analysis = nullptr;  // kaudit-analysis/1 (whole document or one files[] entry)
  const nlohmann::json* run = nullptr;       // kaudit-run/1
};

// Throws std::runtime_error when a document is malformed (wrong schema,
// missing fields), naming what is wrong.
nlohmann::json decide_verdict(const Evidence& evidence, const VerdictPolicy& policy);

}  // namespace kaudit::rules
