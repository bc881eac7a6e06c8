// The verdict policy against the finding catalog: a new check or probe must
// say how it decides, and the policy must name only ids that exist.
#include "audit/finding_catalog.h"
#include "rules/rule_pack.h"

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

// Every static id that could decide is in exactly one of static_decides,
// confirmed_by and static_leads of the default pack.
TEST(VerdictPolicy, EveryDecidingStaticIdHasOnePolicyEntry) {
  const rules::VerdictPolicy& p = rules::default_rule_pack().verdict;
  int checked = 0;
  for (const auto& e : audit::finding_catalog().entries()) {
    const rules::FindingInfo* info = static_info(e);
    if (!info || !decides(info->category)) continue;
    const int entries = static_cast<int>(p.static_decides.count(e.id)) + static_cast<int>(p.confirmed_by.count(e.id)) +
                        static_cast<int>(p.static_leads.count(e.id));
    EXPECT_EQ(entries, 1) << e.id << " must be in exactly one of verdict.static_decides, verdict.confirmed_by and "
                                     "verdict.static_leads of rules/packs/default.json";
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
