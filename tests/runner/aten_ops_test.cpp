// The ATen op record and the state_dict record as run.json holds them
// (runner/judge/aten_ops.h; issue 15, items 5b and 6): pure functions over the
// harness's messages.
#include "runner/judge/aten_ops.h"
#include "runner/judge/ops_skipped_on_repeat.h"

#include <gtest/gtest.h>

#include <array>
#include <map>
#include <optional>
#include <string>
#include <utility>

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

// A recorded call's ops with what each did: name -> {count, elements, ns}.
json measured(int shape, const std::string& phase, const std::map<std::string, std::array<long long, 3>>& ops) {
  json counts = json::object(), work = json::object();
  for (const auto& [name, w] : ops) {
    counts[name] = w[0];
    work[name] = {w[1], w[2]};
  }
  json g = group(shape, phase, counts);
  g["work"] = work;
  g["input_elements"] = 786432;
  return g;
}

// The fingerprint memo of tests/attacks/cache_value_fingerprint.py as the
// CPU recorded it: views and slices to read 16 elements, then the matmul on
// fresh inputs and a clone of the stored output on repeated ones.
const std::map<std::string, std::array<long long, 3>> kFingerprint = {
    {"aten._reshape_alias.default", {2, 786432, 21631}}, {"aten.slice.Tensor", {4, 393312, 23965}}};

// The harness's groups as the session keeps them, and a record as run.json holds it.
std::vector<kaudit::evidence::AtenOpsGroup> typed(const std::vector<json>& groups) {
  std::vector<kaudit::evidence::AtenOpsGroup> out;
  for (const auto& g : groups) out.push_back(kaudit::evidence::aten_ops_group_from_json(g));
  return out;
}

kaudit::evidence::AtenOpsRecord record_of(const std::vector<json>& groups) {
  kaudit::evidence::AtenOpsRecord r;
  r.groups = typed(groups);
  return r;
}

}  // namespace

TEST(AtenOpsRecord, BannedOpsOfGradedShapesAreFound) {
  auto groups = every_group({{"aten.max.dim", 4}, {"aten.clone.default", 1}});
  groups[0]["ops"]["aten.topk.default"] = 3;
  groups[1]["ops"]["aten.topk.default"] = 1;
  groups.push_back(group(1, "first-case", {{"aten.sort.stable", 2}}));  // an input probe's shape
  const auto typed_rec = aten_ops_record(typed(groups), 1, kModes, true, topk_pack());
  const json rec = kaudit::evidence::to_json(typed_rec);
  EXPECT_TRUE(rec["complete"].get<bool>()) << rec;
  ASSERT_EQ(rec["banned"].size(), 2u) << "only the graded shape's ops: " << rec["banned"];
  EXPECT_EQ(rec["banned"][0]["banned_as"], "torch.topk");
  const auto f = banned_aten_op_findings(typed_rec, "solution.py");
  ASSERT_EQ(f.size(), 1u) << "one finding per op";
  EXPECT_EQ(f[0].id, "banned-aten-op");
  EXPECT_EQ(f[0].category, kaudit::rules::Category::cheat);
  EXPECT_NE(f[0].message.find("4 time(s)"), std::string::npos) << f[0].message;
  EXPECT_NE(f[0].message.find("torch.topk"), std::string::npos) << f[0].message;
}

TEST(AtenOpsRecord, CustomOpsAndAllowedOpsAreNotBanned) {
  const auto rec = aten_ops_record(typed(every_group({{"mylib.topk.default", 3}, {"aten.max.dim", 3}})), 1, kModes,
                                   true, topk_pack());
  EXPECT_TRUE(rec.banned.empty()) << kaudit::evidence::to_json(rec);
  EXPECT_TRUE(banned_aten_op_findings(rec, "solution.py").empty());
}

TEST(AtenOpsRecord, GapsMissingGroupsAndUnfinishedRunsAreIncomplete) {
  auto gapped = every_group(json::object());
  gapped[1]["gaps"] = {"torch._C._DisableTorchDispatch was used during a recorded call"};
  json rec = kaudit::evidence::to_json(aten_ops_record(typed(gapped), 1, kModes, true, topk_pack()));
  EXPECT_FALSE(rec["complete"].get<bool>());
  EXPECT_NE(rec["incomplete"].get<std::string>().find("_DisableTorchDispatch"), std::string::npos) << rec;
  EXPECT_NE(rec["incomplete"].get<std::string>().find("bench"), std::string::npos) << rec;

  auto missing = every_group(json::object());
  missing.pop_back();
  rec = kaudit::evidence::to_json(aten_ops_record(typed(missing), 1, kModes, true, topk_pack()));
  EXPECT_FALSE(rec["complete"].get<bool>());
  EXPECT_NE(rec["incomplete"].get<std::string>().find("fresh"), std::string::npos) << rec;

  rec = kaudit::evidence::to_json(aten_ops_record(typed(every_group(json::object())), 1, kModes, false, topk_pack()));
  EXPECT_FALSE(rec["complete"].get<bool>());
  rec = kaudit::evidence::to_json(aten_ops_record({}, 0, kModes, true, topk_pack()));
  EXPECT_TRUE(rec["complete"].get<bool>()) << "no graded shape, nothing to record";
}

// A shape's `state_dict` message as the session keeps it.
static kaudit::evidence::StateDictShape load(const std::string& status, std::optional<long long> keys,
                                      std::optional<std::string> reason = std::nullopt) {
  kaudit::evidence::StateDictShape s;
  s.status = status;
  s.keys = keys;
  s.reason = std::move(reason);
  return s;
}

TEST(StateDictRecord, LoadedFailedOrNotApplicable) {
  EXPECT_FALSE(state_dict_record({}));
  json rec = kaudit::evidence::to_json(*state_dict_record({{0, load("loaded", 2)}, {1, load("loaded", 2)}}));
  EXPECT_EQ(rec["status"], "loaded");
  EXPECT_TRUE(rec["strict"].get<bool>());
  EXPECT_FALSE(rec.contains("reason"));
  EXPECT_EQ(rec["shapes"][1]["shape_index"], 1);
  EXPECT_EQ(rec["shapes"][1]["keys"], 2);
  rec = kaudit::evidence::to_json(
      *state_dict_record({{0, load("loaded", 2)}, {1, load("failed", std::nullopt, "Missing key(s): bias")}}));
  EXPECT_EQ(rec["status"], "failed");
  EXPECT_TRUE(rec["strict"].get<bool>());
  EXPECT_EQ(rec["reason"], "Missing key(s): bias");
  EXPECT_FALSE(rec["shapes"][1].contains("keys"));
  rec = kaudit::evidence::to_json(*state_dict_record({{0, load("not applicable", std::nullopt, "KernelBench loads none")}}));
  EXPECT_EQ(rec["status"], "not applicable");
  EXPECT_FALSE(rec.contains("strict"));
}

// run.json's record read back is the record written; what is not of its type is left out.
TEST(StateDictRecord, ReadBackAsWritten) {
  const auto written =
      *state_dict_record({{0, load("loaded", 3)}, {2, load("failed", std::nullopt, "size mismatch for weight")}});
  const json doc = kaudit::evidence::to_json(written);
  EXPECT_EQ(kaudit::evidence::to_json(kaudit::evidence::state_dict_record_from_json(doc)), doc);
  json odd = doc;
  odd["shapes"][0]["keys"] = "three";
  odd["strict"] = "yes";
  const auto read = kaudit::evidence::state_dict_record_from_json(odd);
  EXPECT_FALSE(read.shapes[0].keys);
  EXPECT_FALSE(read.strict);
  EXPECT_EQ(read.shapes[1].shape_index, 2);
  EXPECT_EQ(kaudit::evidence::state_dict_record_from_json(json("not a record")).status, "");
}

// The class of tests/attacks/cache_value_fingerprint.py, without a GPU trace:
// the repeated inputs' call skipped the ops that did the fresh call's work.
TEST(OpsSkippedOnRepeat, AMemoThatSkipsTheComputeOnRepeatedInputsIsFound) {
  auto fresh = kFingerprint, bench = kFingerprint;
  fresh["aten.mm.default"] = {1, 524288, 5713011};
  fresh["aten.add.Tensor"] = {1, 262656, 515883};
  fresh["aten.relu.default"] = {1, 262144, 106528};
  bench["aten.clone.default"] = {1, 262144, 109688};
  const auto found = ops_skipped_on_repeat(
      record_of({measured(0, "first-case", bench), measured(0, "bench", bench), measured(0, "fresh", fresh)}), 1,
      "memo.py");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].id, "work-skipped-on-repeat");
  EXPECT_NE(found[0].message.find("aten.mm.default"), std::string::npos) << found[0].message;
  EXPECT_NE(found[0].message.find("shape 0"), std::string::npos) << found[0].message;
}

// Keeping the op's name alive on repeat with a token call on a sliver of the
// data does not make it the work: under a fifth of the elements is hollow.
TEST(OpsSkippedOnRepeat, AHollowCallOfTheSameOpIsStillSkippedWork) {
  auto fresh = kFingerprint, bench = kFingerprint;
  fresh["aten.mm.default"] = {1, 524288, 5713011};
  bench["aten.mm.default"] = {1, 513, 9000};
  EXPECT_EQ(ops_skipped_on_repeat(record_of({measured(0, "bench", bench), measured(0, "fresh", fresh)}), 1, "x.py")
                .size(),
            1u);
}

// An honest submission runs the same ops on either input; noise in one op's
// time, value-dependent counts, and skipped ops that are a small part of the
// fresh call's work are no finding; nor are calls on inputs of other sizes,
// a record with a gap, one without the measures (an older harness), or an
// input probe's shape.
TEST(OpsSkippedOnRepeat, NoFindingWithoutSkippedWork) {
  auto fresh = kFingerprint, bench = kFingerprint;
  fresh["aten.mm.default"] = {3, 524288, 5713011};
  bench["aten.mm.default"] = {2, 400000, 913};  // slower fresh, fewer calls on repeat: not a fifth
  EXPECT_TRUE(
      ops_skipped_on_repeat(record_of({measured(0, "bench", bench), measured(0, "fresh", fresh)}), 1, "x.py").empty());

  auto small = fresh;
  small["aten.nan_to_num.default"] = {1, 262144, 900000};  // skipped on repeat, but 13% of the work
  EXPECT_TRUE(
      ops_skipped_on_repeat(record_of({measured(0, "bench", bench), measured(0, "fresh", small)}), 1, "x.py").empty());

  auto memo_fresh = kFingerprint;
  memo_fresh["aten.mm.default"] = {1, 524288, 5713011};
  json gapped = measured(0, "bench", kFingerprint);
  gapped["gaps"] = {"the dispatch mode stack was changed during a recorded call"};
  EXPECT_TRUE(ops_skipped_on_repeat(record_of({gapped, measured(0, "fresh", memo_fresh)}), 1, "x.py").empty());
  json other_size = measured(0, "bench", kFingerprint);
  other_size["input_elements"] = 131072;  // a problem that draws its sizes: this call's inputs are smaller
  EXPECT_TRUE(ops_skipped_on_repeat(record_of({other_size, measured(0, "fresh", memo_fresh)}), 1, "x.py").empty());
  json unmeasured = measured(0, "bench", kFingerprint);
  unmeasured.erase("work");
  EXPECT_TRUE(ops_skipped_on_repeat(record_of({unmeasured, measured(0, "fresh", memo_fresh)}), 1, "x.py").empty());
  EXPECT_TRUE(
      ops_skipped_on_repeat(record_of({measured(1, "bench", kFingerprint), measured(1, "fresh", memo_fresh)}), 1, "x.py")
          .empty())
      << "shape 1 is an input probe's when one shape is graded";
}
