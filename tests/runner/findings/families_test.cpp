// The registry of runtime finding families (runner/judge/findings/finding_list.def).
#include "runner/judge/findings/families.h"
#include "runner/judge/finding_catalog.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

using namespace kaudit::run;

TEST(RuntimeFindingFamilies, EachIsListedOnceWithAJudge) {
  std::set<std::string> names;
  for (const auto& family : runtime_finding_families()) {
    EXPECT_TRUE(names.insert(family.name).second) << family.name << " is listed twice";
    EXPECT_NE(family.judge, nullptr) << family.name;
    EXPECT_NE(family.catalog, nullptr) << family.name;
  }
  EXPECT_TRUE(names.count("fresh_input_gap"));
}

// The families' entries are in the runner's catalog, one after another in
// the list's order (kaudit explain and docs/findings.md list them so).
TEST(RuntimeFindingFamilies, TheirEntriesAreInTheRunnersCatalogInListOrder) {
  const auto families = runtime_family_catalog();
  ASSERT_FALSE(families.empty());
  const auto& all = runner_finding_catalog();
  const auto first = std::find_if(all.begin(), all.end(), [&](const auto& f) { return f.id == families.front().id; });
  ASSERT_NE(first, all.end());
  ASSERT_GE(all.end() - first, static_cast<long>(families.size()));
  for (std::size_t k = 0; k < families.size(); ++k) EXPECT_EQ(first[static_cast<long>(k)].id, families[k].id);
}
