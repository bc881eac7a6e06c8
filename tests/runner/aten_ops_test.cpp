// The ATen op record and the state_dict record as run.json holds them
// (runner/judge/aten_ops.h; issue 15, items 5b and 6): pure functions over the
// harness's messages.
#include "runner/judge/aten_ops.h"

#include <gtest/gtest.h>

using namespace kaudit::run;
using json = nlohmann::json;

namespace {

json group(int shape, const std::string& phase, json ops, json gaps = json::array()) {
  return {{"shape", shape}, {"phase", phase}, {"calls", 1}, {"ops", ops}, {"gaps", gaps}};
}

kaudit::rules::RulePack topk_pack() {
  kaudit::rules::RulePack pack;
  kaudit::rules::merge_problem_forbidden(pack, {"torch.topk", "torch.sort"});
  return pack;
}

std::vector<json> every_group(json ops) {
  std::vector<json> g;
  for (const char* p : {"first-case", "bench", "fresh"}) g.push_back(group(0, p, ops));
  return g;
}

const std::vector<std::string> kModes = {"bench", "fresh"};

}  // namespace

TEST(AtenOpsRecord, BannedOpsOfGradedShapesAreFound) {
  auto groups = every_group({{"aten.max.dim", 4}, {"aten.clone.default", 1}});
  groups[0]["ops"]["aten.topk.default"] = 3;
  groups[1]["ops"]["aten.topk.default"] = 1;
  groups.push_back(group(1, "first-case", {{"aten.sort.stable", 2}}));  // an input probe's shape
  const json rec = aten_ops_record(groups, 1, kModes, true, topk_pack());
  EXPECT_TRUE(rec["complete"].get<bool>()) << rec;
  ASSERT_EQ(rec["banned"].size(), 2u) << "only the graded shape's ops: " << rec["banned"];
  EXPECT_EQ(rec["banned"][0]["banned_as"], "torch.topk");
  const auto f = banned_aten_op_findings(rec, "solution.py");
  ASSERT_EQ(f.size(), 1u) << "one finding per op";
  EXPECT_EQ(f[0].id, "banned-aten-op");
  EXPECT_EQ(f[0].category, kaudit::rules::Category::cheat);
  EXPECT_NE(f[0].message.find("4 time(s)"), std::string::npos) << f[0].message;
  EXPECT_NE(f[0].message.find("torch.topk"), std::string::npos) << f[0].message;
}

TEST(AtenOpsRecord, CustomOpsAndAllowedOpsAreNotBanned) {
  const json rec = aten_ops_record(every_group({{"mylib.topk.default", 3}, {"aten.max.dim", 3}}), 1, kModes, true,
                                   topk_pack());
  EXPECT_TRUE(rec["banned"].empty()) << rec;
  EXPECT_TRUE(banned_aten_op_findings(rec, "solution.py").empty());
}

TEST(AtenOpsRecord, GapsMissingGroupsAndUnfinishedRunsAreIncomplete) {
  auto gapped = every_group(json::object());
  gapped[1]["gaps"] = {"torch._C._DisableTorchDispatch was used during a recorded call"};
  json rec = aten_ops_record(gapped, 1, kModes, true, topk_pack());
  EXPECT_FALSE(rec["complete"].get<bool>());
  EXPECT_NE(rec["incomplete"].get<std::string>().find("_DisableTorchDispatch"), std::string::npos) << rec;
  EXPECT_NE(rec["incomplete"].get<std::string>().find("bench"), std::string::npos) << rec;

  auto missing = every_group(json::object());
  missing.pop_back();
  rec = aten_ops_record(missing, 1, kModes, true, topk_pack());
  EXPECT_FALSE(rec["complete"].get<bool>());
  EXPECT_NE(rec["incomplete"].get<std::string>().find("fresh"), std::string::npos) << rec;

  rec = aten_ops_record(every_group(json::object()), 1, kModes, false, topk_pack());
  EXPECT_FALSE(rec["complete"].get<bool>());
  rec = aten_ops_record({}, 0, kModes, true, topk_pack());
  EXPECT_TRUE(rec["complete"].get<bool>()) << "no graded shape, nothing to record";
}

TEST(StateDictRecord, LoadedFailedOrNotApplicable) {
  EXPECT_TRUE(state_dict_record({}).is_null());
  json rec = state_dict_record({{0, {{"status", "loaded"}, {"keys", 2}}}, {1, {{"status", "loaded"}, {"keys", 2}}}});
  EXPECT_EQ(rec["status"], "loaded");
  EXPECT_TRUE(rec["strict"].get<bool>());
  EXPECT_EQ(rec["shapes"][1]["shape_index"], 1);
  rec = state_dict_record(
      {{0, {{"status", "loaded"}, {"keys", 2}}}, {1, {{"status", "failed"}, {"reason", "Missing key(s): bias"}}}});
  EXPECT_EQ(rec["status"], "failed");
  EXPECT_EQ(rec["reason"], "Missing key(s): bias");
  rec = state_dict_record({{0, {{"status", "not applicable"}, {"reason", "KernelBench loads none"}}}});
  EXPECT_EQ(rec["status"], "not applicable");
  EXPECT_FALSE(rec.contains("strict"));
}
