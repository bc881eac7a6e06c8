// Scale-out without Slurm (docs/scale-out.md): kaudit audit --shard I/N
// (audit/items.h: deterministic, disjoint shards whose union is the batch)
// and kaudit merge (audit/merge.h: nothing lost, conflicts named, missing
// shards listed) on batch folders written here.
#include "audit/items.h"
#include "audit/merge.h"
#include "evidence/json_file.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <unistd.h>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using json = nlohmann::json;
using kaudit::audit::AuditItem;
using kaudit::audit::MergeError;
using kaudit::audit::MergeOptions;
using kaudit::audit::Shard;

namespace {

std::vector<AuditItem> make_items(int n) {
  std::vector<AuditItem> items;
  for (int i = 0; i < n; ++i) {
    const std::string key = "sub__k" + std::to_string(n - i);  // not in key order
    items.push_back({"sub/" + key + ".py", fs::path("problems/p"), {{"result", "correct"}, {"integrity", "clean"}}, key});
  }
  return items;
}

std::vector<std::string> keys_of(const std::vector<AuditItem>& items) {
  std::vector<std::string> keys;
  for (const auto& it : items) keys.push_back(it.key);
  return keys;
}

class ScaleOut : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kaudit-scale-out-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A batch folder as kaudit audit writes it: summary.json and, per
  // submission, verdict.json and run.json (whose `note` makes evidence differ).
  fs::path write_batch(const std::string& name, const std::vector<AuditItem>& items,
                       const std::map<std::string, std::string>& integrity = {}, const json& shard = nullptr,
                       const std::string& note = "") {
    const fs::path b = dir_ / name;
    json entries = json::array();
    for (const auto& it : items) {
      const std::string i = integrity.count(it.key) ? integrity.at(it.key) : "clean";
      fs::create_directories(b / it.key);
      entries.push_back({{"key", it.key}, {"path", it.source.string()}, {"problem", "p"}, {"result", "correct"},
                         {"integrity", i}, {"status", "done"}, {"seconds", 1.5}, {"expected", it.expected},
                         {"matches", i == it.expected["integrity"]}});
      kaudit::evidence::write_json_file(b / it.key / "verdict.json",
                                        {{"schema", "kaudit-verdict/1"}, {"result", "correct"}, {"integrity", i}});
      kaudit::evidence::write_json_file(b / it.key / "run.json", {{"schema", "kaudit-run/1"}, {"note", note + it.key}});
    }
    fs::create_directories(b);
    json summary = {{"schema", "kaudit-audit/1"}, {"kaudit_version", "test"}, {"root", "/nowhere"},
                    {"device", "cpu"}, {"gpu", nullptr}, {"submissions", entries}};
    if (!shard.is_null()) summary["shard"] = shard;
    kaudit::evidence::write_json_file(b / "summary.json", summary);
    return b;
  }

  // Shard `index` of `count` of `all`, as kaudit audit --shard writes it.
  fs::path write_shard(const std::vector<AuditItem>& all, int index, int count, const std::string& name = "") {
    const json record = {{"index", index}, {"count", count}, {"inputs", kaudit::audit::batch_inputs(all)}};
    return write_batch(name.empty() ? "shard-" + std::to_string(index) : name,
                       kaudit::audit::shard_items(all, Shard{index, count}), {}, record);
  }

  json merge(std::vector<fs::path> batches, const std::string& on_conflict = "error", const std::string& out = "out",
             bool link = false) {
    MergeOptions o;
    o.out_dir = dir_ / out;
    o.batches = std::move(batches);
    o.on_conflict = on_conflict;
    o.link = link;
    return kaudit::audit::merge_batches(o);
  }

  static std::vector<std::string> entry_keys(const json& summary) {
    std::vector<std::string> keys;
    for (const auto& e : summary["submissions"]) keys.push_back(e["key"]);
    return keys;
  }

  fs::path dir_;
};

}  // namespace

TEST(Shard, ParsesIOverNNumberedFromZeroAndRefusesTheRest) {
  EXPECT_EQ(kaudit::audit::parse_shard("0/1").count, 1);
  EXPECT_EQ(kaudit::audit::parse_shard("3/4").index, 3);
  try {
    kaudit::audit::parse_shard("3/2");
    FAIL() << "3/2 was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("numbered 0 to 1"), std::string::npos) << e.what();
  }
  for (const char* bad : {"4/4", "0/0", "1", "x/2", "-1/2", "1/2/3", "", "/", "1/", "99999999/100000000"})
    EXPECT_THROW(kaudit::audit::parse_shard(bad), std::invalid_argument) << bad;
}

TEST(Shard, ShardsAreDisjointCoverTheBatchAndAreBalanced) {
  const auto items = make_items(11);
  for (int n = 1; n <= 13; ++n) {
    std::multiset<std::string> seen;
    std::size_t smallest = items.size(), largest = 0;
    for (int i = 0; i < n; ++i) {
      const auto part = kaudit::audit::shard_items(items, Shard{i, n});
      for (const auto& it : part) seen.insert(it.key);
      smallest = std::min(smallest, part.size());
      largest = std::max(largest, part.size());
    }
    const auto all = keys_of(items);
    EXPECT_EQ(seen, std::multiset<std::string>(all.begin(), all.end())) << n << " shards: each item exactly once";
    EXPECT_LE(largest - smallest, 1u) << n << " shards";
  }
}

// The same submissions in another order (another machine's listing) give
// every shard the same submissions; within a shard the batch's order stays.
TEST(Shard, AShardIsTheSameWhateverTheOrderOfTheBatch) {
  auto items = make_items(9);
  auto reversed = items;
  std::reverse(reversed.begin(), reversed.end());
  for (int i = 0; i < 4; ++i) {
    auto a = keys_of(kaudit::audit::shard_items(items, Shard{i, 4}));
    auto b = keys_of(kaudit::audit::shard_items(reversed, Shard{i, 4}));
    std::reverse(b.begin(), b.end());
    EXPECT_EQ(a, b) << "shard " << i;
    const auto order = keys_of(items);
    std::vector<std::ptrdiff_t> at;
    for (const auto& k : a) at.push_back(std::find(order.begin(), order.end(), k) - order.begin());
    EXPECT_TRUE(std::is_sorted(at.begin(), at.end())) << "shard " << i << " keeps the batch's order";
  }
}

TEST(Shard, TheInputsRecordTellsBatchesApart) {
  const auto items = make_items(5);
  const json a = kaudit::audit::batch_inputs(items);
  EXPECT_EQ(a, kaudit::audit::batch_inputs(items));
  EXPECT_EQ(a["count"], 5);
  EXPECT_EQ(a["submissions"].size(), 5u);
  EXPECT_EQ(a["submissions"][0]["key"], items[0].key);
  auto other = items;
  other[2].source = "elsewhere/x.py";
  EXPECT_NE(a["digest"], kaudit::audit::batch_inputs(other)["digest"]);
  EXPECT_NE(a["digest"], kaudit::audit::batch_inputs(make_items(4))["digest"]);
}

TEST_F(ScaleOut, MergedShardsHoldEverySubmissionInTheBatchsOrderWithItsEvidence) {
  const auto all = make_items(7);
  const auto s0 = write_shard(all, 0, 3), s1 = write_shard(all, 1, 3), s2 = write_shard(all, 2, 3);
  const json summary = merge({s2, s0, s1});
  EXPECT_EQ(entry_keys(summary), keys_of(all)) << "the manifest's order, whatever the order of the shards";
  EXPECT_EQ(summary["merge"]["shards"]["present"], json({0, 1, 2}));
  EXPECT_TRUE(summary["merge"]["shards"]["missing"].empty());
  EXPECT_TRUE(summary["merge"]["missing"].empty());
  EXPECT_TRUE(summary["merge"]["conflicts"].empty());
  EXPECT_EQ(summary["counts"]["clean"], 7);
  EXPECT_EQ(summary["expectations"], json({{"matched", 7}, {"of", 7}}));
  for (const auto& it : all) {
    const auto run_doc = kaudit::evidence::read_json_file(dir_ / "out" / it.key / "run.json");
    ASSERT_TRUE(run_doc) << it.key << ": evidence not copied";
    EXPECT_EQ((*run_doc)["note"], it.key);
  }
  EXPECT_EQ(*kaudit::evidence::read_json_file(dir_ / "out" / "summary.json"), summary);
  EXPECT_TRUE(fs::is_regular_file(dir_ / "out" / "report.md"));
  EXPECT_TRUE(fs::is_regular_file(dir_ / "out" / "report.html"));
  EXPECT_TRUE(fs::exists(s0 / "summary.json")) << "the shards stay as they were";
}

TEST_F(ScaleOut, AMissingShardIsNamedAndItsSubmissionsListedAndAMergeCanBeCompletedLater) {
  const auto all = make_items(6);
  const auto s0 = write_shard(all, 0, 2), s1 = write_shard(all, 1, 2);
  const json part = merge({s0}, "error", "partial");
  EXPECT_EQ(part["merge"]["shards"]["missing"], json({1}));
  const auto lost = keys_of(kaudit::audit::shard_items(all, Shard{1, 2}));
  EXPECT_EQ(part["merge"]["missing"].get<std::vector<std::string>>(), lost);
  EXPECT_EQ(entry_keys(part), keys_of(all)) << "the missing ones are listed in their places";
  for (const auto& e : part["submissions"]) {
    const bool is_lost = std::count(lost.begin(), lost.end(), e["key"].get<std::string>()) > 0;
    EXPECT_EQ(e["status"] == "missing", is_lost) << e;
    if (is_lost) {
      EXPECT_EQ(e["integrity"], "not-run") << e;
    }
  }
  EXPECT_EQ(part["expectations"], json({{"matched", 3}, {"of", 6}}));
  const std::string md = kaudit::evidence::read_text_file(dir_ / "partial" / "report.md");
  EXPECT_NE(md.find("merged without shard"), std::string::npos) << "the report says so";
  EXPECT_NE(kaudit::evidence::read_text_file(dir_ / "partial" / "report.html").find("merged without shard(s) [1]"),
            std::string::npos);

  const json whole = merge({dir_ / "partial", s1}, "error", "whole");
  EXPECT_TRUE(whole["merge"]["missing"].empty());
  EXPECT_EQ(whole["expectations"], json({{"matched", 6}, {"of", 6}}));
  EXPECT_EQ(entry_keys(whole), keys_of(all));
}

TEST_F(ScaleOut, DifferentVerdictsForOneSubmissionAreAnErrorNamingBothBatches) {
  const auto items = make_items(3);
  const auto a = write_batch("a", items), b = write_batch("b", items, {{items[1].key, "cheat"}});
  try {
    merge({a, b});
    FAIL() << "merged conflicting batches";
  } catch (const MergeError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(items[1].key), std::string::npos) << what;
    EXPECT_NE(what.find(a.string() + " says correct / clean"), std::string::npos) << what;
    EXPECT_NE(what.find(b.string() + " says correct / cheat"), std::string::npos) << what;
  }
  EXPECT_FALSE(fs::exists(dir_ / "out")) << "nothing is written";

  const json last = merge({a, b}, "last");
  EXPECT_EQ(last["submissions"][1]["integrity"], "cheat");
  ASSERT_EQ(last["merge"]["conflicts"].size(), 1u);
  EXPECT_EQ(last["merge"]["conflicts"][0]["kept"], b.string());
  EXPECT_EQ((*kaudit::evidence::read_json_file(dir_ / "out" / items[1].key / "verdict.json"))["integrity"], "cheat");
  const json first = merge({a, b}, "first");
  EXPECT_EQ(first["submissions"][1]["integrity"], "clean");
  EXPECT_EQ((*kaudit::evidence::read_json_file(dir_ / "out" / items[1].key / "verdict.json"))["integrity"], "clean");
}

TEST_F(ScaleOut, TheSameEvidenceTwiceIsOneSubmissionButDifferentEvidenceIsAConflict) {
  const auto items = make_items(2);
  const auto a = write_batch("a", items), copy = write_batch("copy", items);
  const json same = merge({a, copy});
  EXPECT_EQ(same["submissions"].size(), 2u);
  EXPECT_TRUE(same["merge"]["conflicts"].empty());
  const auto rerun = write_batch("rerun", items, {}, nullptr, "again ");
  try {
    merge({a, rerun}, "error", "out2");
    FAIL() << "different evidence merged silently";
  } catch (const MergeError& e) {
    EXPECT_NE(std::string(e.what()).find("different evidence"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("run.json"), std::string::npos) << e.what();
  }
}

TEST_F(ScaleOut, OneShardTwiceOrShardsOfOtherInputsAreRefused) {
  const auto all = make_items(4);
  const auto s0 = write_shard(all, 0, 2), again = write_shard(all, 0, 2, "shard-0-again"), s1 = write_shard(all, 1, 2);
  try {
    merge({s0, again, s1});
    FAIL() << "one shard twice";
  } catch (const MergeError& e) {
    EXPECT_NE(std::string(e.what()).find("shard 0/2 is in both " + s0.string()), std::string::npos) << e.what();
  }
  const auto other = write_shard(make_items(5), 1, 2, "other-1");
  EXPECT_THROW(merge({s0, other}), MergeError) << "shards of other inputs";
  const auto three = write_shard(all, 1, 3, "three-1");
  EXPECT_THROW(merge({s0, three}), MergeError) << "shards cut another way";
  const auto whole = write_batch("whole", all);
  EXPECT_THROW(merge({s0, whole}), MergeError) << "a shard with a whole batch";
  EXPECT_THROW(merge({s0, s0}), MergeError) << "one folder twice";
}

TEST_F(ScaleOut, TheOutputIsNeitherAnInputNorSomethingElsesFolder) {
  const auto items = make_items(2);
  const auto a = write_batch("a", items);
  EXPECT_THROW(merge({a}, "error", "a"), MergeError);
  EXPECT_THROW(merge({a}, "error", "a/merged"), MergeError);
  fs::create_directories(dir_ / "busy");
  kaudit::evidence::write_json_file(dir_ / "busy" / "notes.json", {{"mine", true}});
  EXPECT_THROW(merge({a}, "error", "busy"), MergeError);
  EXPECT_TRUE(fs::exists(dir_ / "busy" / "notes.json"));
  EXPECT_THROW(merge({dir_ / "nothing"}), MergeError) << "not a batch folder";
  merge({a});
  EXPECT_NO_THROW(merge({a})) << "an earlier merge is replaced";
}

TEST_F(ScaleOut, LinkedEvidenceSharesTheFiles) {
  const auto items = make_items(2);
  const auto a = write_batch("a", items);
  merge({a}, "error", "out", true);
  EXPECT_EQ(fs::hard_link_count(dir_ / "out" / items[0].key / "run.json"), 2u);
  EXPECT_TRUE(fs::equivalent(dir_ / "out" / items[0].key / "run.json", a / items[0].key / "run.json"));
}
