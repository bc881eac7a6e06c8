// The verdict policy against the finding catalog: a new check or probe must
// say how it decides, and the policy must name only ids that exist.
#include "audit/finding_catalog.h"
#include "rules/rule_pack.h"
#include "rules/verdict.h"
#include "runner/judge/input_probes.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

using namespace kaudit;

namespace {

bool decides(rules::Category c) { return c == rules::Category::cheat || c == rules::Category::benchmark_aware; }

const rules::FindingInfo* static_info(const rules::CatalogEntry& e) {
  for (const auto& i : e.sources)
    if (i.source == rules::Source::static_analysis) return &i;
  return nullptr;
}

bool reported_at_run_time(const rules::CatalogEntry& e) {
  for (const auto& i : e.sources)
    if (i.source != rules::Source::static_analysis) return true;
  return false;
}

}  // namespace

// Every static id that could decide is either a lead (static_leads) or
// decides: alone (static_decides), when confirmed at run time (confirmed_by),
// or both (alone at high confidence, below it when confirmed).
TEST(VerdictPolicy, EveryDecidingStaticIdHasOnePolicyEntry) {
  const rules::VerdictPolicy& p = rules::default_rule_pack().verdict;
  int checked = 0;
  for (const auto& e : audit::finding_catalog().entries()) {
    const rules::FindingInfo* info = static_info(e);
    if (!info || !decides(info->category)) continue;
    const bool deciding = p.static_decides.count(e.id) || p.confirmed_by.count(e.id);
    EXPECT_NE(deciding, p.static_leads.count(e.id) > 0)
        << e.id << " must be in verdict.static_leads, or in verdict.static_decides and/or verdict.confirmed_by, of "
                   "rules/packs/default.json";
    ++checked;
  }
#ifdef KAUDIT_HAVE_ANALYZER
  EXPECT_GT(checked, 10) << "the analyzer's checks are in the catalog";
#endif
}

// Every id the policy names exists, and confirmations are reported at run time.
TEST(VerdictPolicy, EveryIdItNamesExists) {
  const auto& catalog = audit::finding_catalog();
  const rules::VerdictPolicy& p = rules::default_rule_pack().verdict;
  std::set<std::string> named(p.static_decides.begin(), p.static_decides.end());
  named.insert(p.static_leads.begin(), p.static_leads.end());
  for (const auto& [id, confirmations] : p.confirmed_by) {
    named.insert(id);
    for (const auto& c : confirmations) {
      const rules::CatalogEntry* e = catalog.find(c);
      ASSERT_NE(e, nullptr) << "confirmed_by[" << id << "] names " << c << ", which no producer reports";
      EXPECT_TRUE(reported_at_run_time(*e)) << c << " confirms " << id << " but is not reported at run time";
    }
  }
#ifdef KAUDIT_HAVE_ANALYZER
  for (const auto& id : named) EXPECT_NE(catalog.find(id), nullptr) << "the verdict policy names " << id << ", unknown";
#endif
}

// The built-in problem packs either follow the default policy or name only known ids.
TEST(VerdictPolicy, BuiltinPacksParse) {
  for (const auto& f : std::filesystem::directory_iterator(std::string(KAUDIT_SOURCE_DIR) + "/rules/packs")) {
    const auto pack = rules::builtin_rule_pack(f.path().stem().string());
    ASSERT_TRUE(pack.has_value()) << f.path();
    EXPECT_FALSE(pack->verdict.confirmed_by.empty()) << f.path() << ": every pack has a verdict policy";
  }
}

// The input probes (issue 15, item 4) decide at run time as their confidence
// says: a wrong answer on an aligned off-grid shape or another distribution
// decides benchmark-aware and confirms a static shape-hardcoded lead; an
// exception alone is a lead beside the verdict.
TEST(VerdictPolicy, InputProbesDecideByTheirConfidence) {
  const rules::VerdictPolicy& p = rules::default_rule_pack().verdict;
  auto outcome = [](const std::string& kind, const std::string& status) {
    run::InputProbeOutcome o;
    o.kind = kind;
    o.what = kind == "off-grid" ? "k 128 -> 192" : "heavy-tailed inputs on shape 0";
    o.aligned = true;
    o.status = status;
    o.reason = "wrong";
    return o;
  };
  auto verdict = [&](const std::vector<run::InputProbeOutcome>& outcomes, std::vector<rules::Finding> statics) {
    rules::VerdictInput in;
    in.submission = "s.py";
    in.static_findings = std::move(statics);
    rules::RunFacts facts;
    facts.result = "correct";
    facts.findings = run::input_probe_findings(outcomes, "s.py");
    in.run = facts;
    return rules::decide_verdict(in, p);
  };
  for (const char* kind : {"off-grid", "distribution"}) {
    EXPECT_EQ(verdict({outcome(kind, "failed")}, {}).integrity, "benchmark-aware") << kind;
    const rules::Verdict raised = verdict({outcome(kind, "raised")}, {});
    EXPECT_EQ(raised.integrity, "clean") << kind;
    EXPECT_EQ(raised.beside.size(), 1u) << kind;
  }
  rules::Finding lead;
  lead.id = "shape-hardcoded";
  lead.source = rules::Source::static_analysis;
  lead.category = rules::Category::benchmark_aware;
  lead.confidence = rules::Confidence::medium;
  const rules::Verdict confirmed = verdict({outcome("off-grid", "failed")}, {lead});
  EXPECT_EQ(confirmed.deciding.size(), 2u) << "the static lead is confirmed by the probe";
  const rules::Verdict alone = verdict({outcome("off-grid", "passed")}, {lead});
  EXPECT_EQ(alone.integrity, "clean");
  ASSERT_EQ(alone.beside.size(), 1u);
  EXPECT_EQ(alone.beside[0].category, rules::Category::suspicious);
}
