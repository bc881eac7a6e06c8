// A batch folder's safety (audit/batch_folder.h): one writer at a time, one
// batch per folder, and evidence that cannot be read reported as such.
#include "audit/batch_folder.h"
#include "audit/audit.h"
#include "audit/submission_audit.h"
#include "evidence/json_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace {

namespace fs = std::filesystem;
using kaudit::audit::AuditItem;
using kaudit::audit::RunSettings;
using nlohmann::json;

class BatchFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kaudit-batch-folder-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static std::vector<AuditItem> items(std::vector<std::string> names, const std::string& problem = "p/linear") {
    std::vector<AuditItem> out;
    for (const auto& n : names)
      out.push_back({"solutions/" + n + ".py", fs::path(problem), nullptr, "solutions__" + n});
    return out;
  }
  static void write(const fs::path& file, const std::string& text) {
    fs::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << text;
  }
  // The message of what `f` throws, or "" when it does not.
  template <typename F>
  static std::string refusal(F f) {
    try {
      f();
    } catch (const std::exception& e) {
      return e.what();
    }
    return "";
  }

  fs::path dir_;
};

TEST_F(BatchFolder, OneHolderAtATimeNamedByItsPidAndALockLeftBehindIsTakenOver) {
  {
    const kaudit::audit::BatchLock held(dir_);
    const std::string why = refusal([&] { kaudit::audit::BatchLock again(dir_); });
    EXPECT_NE(why.find("being written by another kaudit (pid " + std::to_string(::getpid())), std::string::npos) << why;
  }
  // The holder is gone (its descriptor closed, as when a process dies): the
  // file with its stale pid stays and the next audit takes it.
  EXPECT_TRUE(fs::exists(dir_ / ".kaudit.lock"));
  EXPECT_EQ(refusal([&] { kaudit::audit::BatchLock next(dir_); }), "");
}

TEST_F(BatchFolder, TheSameInputsResumeOtherSubmissionsOrProblemsAreRefused) {
  const auto a = items({"clean", "crash"});
  const RunSettings cpu{"cpu", std::nullopt, true, true};
  EXPECT_EQ(refusal([&] { kaudit::audit::check_same_batch(dir_, kaudit::audit::recorded_inputs(a, cpu)); }), "")
      << "a folder holding no batch";
  kaudit::audit::write_recorded_inputs(dir_, kaudit::audit::recorded_inputs(a, cpu));
  EXPECT_EQ(refusal([&] { kaudit::audit::check_same_batch(dir_, kaudit::audit::recorded_inputs(a, cpu)); }), "");
  // Finishing on another device is resuming; so is a static pass over it.
  EXPECT_EQ(
      refusal([&] {
        kaudit::audit::check_same_batch(dir_, kaudit::audit::recorded_inputs(a, RunSettings{"cuda", {}, true, true}));
      }),
      "");
  EXPECT_EQ(refusal([&] { kaudit::audit::check_same_batch(dir_, kaudit::audit::recorded_inputs(a, std::nullopt)); }),
            "");

  std::string why = refusal([&] {
    kaudit::audit::check_same_batch(dir_, kaudit::audit::recorded_inputs(items({"clean", "other"}), cpu));
  });
  EXPECT_NE(why.find("holds another batch"), std::string::npos) << why;
  EXPECT_NE(why.find("solutions__crash is in the folder"), std::string::npos) << why;
  EXPECT_NE(why.find("solutions__other is new"), std::string::npos) << why;
  EXPECT_NE(why.find("--force"), std::string::npos) << why;
  why = refusal([&] {
    kaudit::audit::check_same_batch(dir_, kaudit::audit::recorded_inputs(items({"clean", "crash"}, "p/relu"), cpu));
  });
  EXPECT_NE(why.find("problem \"p/linear\" in the folder, \"p/relu\" now"), std::string::npos) << why;
  why = refusal([&] {
    kaudit::audit::check_same_batch(dir_, kaudit::audit::recorded_inputs(a, RunSettings{"cpu", 5, true, true}));
  });
  EXPECT_NE(why.find("its runs were made with --trials as the problem says, these ask for --trials 5"),
            std::string::npos)
      << why;
}

TEST_F(BatchFolder, AStaticPassKeepsTheRunSettingsRecordedBeforeIt) {
  const auto a = items({"clean"});
  kaudit::audit::write_recorded_inputs(dir_, kaudit::audit::recorded_inputs(a, RunSettings{"cpu", 7, false, true}));
  kaudit::audit::write_recorded_inputs(dir_, kaudit::audit::recorded_inputs(a, std::nullopt));
  const json rec = *kaudit::evidence::read_json_file(dir_ / "inputs.json");
  EXPECT_EQ(rec["schema"], "kaudit-audit-inputs/1");
  EXPECT_EQ(rec["runs"]["trials"], 7);
  EXPECT_EQ(rec["runs"]["trace"], false);
  EXPECT_EQ(rec["submissions"][0]["path"], "solutions/clean.py");
}

TEST_F(BatchFolder, AFolderOfAnOlderKauditIsComparedByItsSubmissionRecords) {
  write(dir_ / "solutions__clean" / "submission.json",
        R"({"schema": "kaudit-submission/1", "path": "solutions/clean.py", "problem_dir": "p/linear"})");
  const RunSettings cpu{"cpu", std::nullopt, true, true};
  EXPECT_EQ(
      refusal([&] { kaudit::audit::check_same_batch(dir_, kaudit::audit::recorded_inputs(items({"clean"}), cpu)); }),
      "");
  const std::string why =
      refusal([&] { kaudit::audit::check_same_batch(dir_, kaudit::audit::recorded_inputs(items({"crash"}), cpu)); });
  EXPECT_NE(why.find("solutions__clean is in the folder"), std::string::npos) << why;
}

TEST_F(BatchFolder, AnUnreadableRecordIsRefusedNotOverwritten) {
  write(dir_ / "inputs.json", "{\"schema\": \"kaudit-audit-in");
  const std::string why = refusal(
      [&] { kaudit::audit::check_same_batch(dir_, kaudit::audit::recorded_inputs(items({"clean"}), std::nullopt)); });
  EXPECT_NE(why.find("not valid JSON"), std::string::npos) << why;
  EXPECT_NE(why.find("--force"), std::string::npos) << why;
}

TEST_F(BatchFolder, ACorruptRunDocumentIsAnErrorThatSaysSoNeverNotRun) {
  const fs::path sub = dir_ / "solutions__clean";
  write(sub / "submission.json",
        R"({"schema": "kaudit-submission/1", "path": "solutions/clean.py", "problem_dir": null})");
  for (const std::string& bad : {std::string(R"({"schema": "kaudit-run/1", "result": "corr)"), std::string("[1, 2]")}) {
    write(sub / "run.json", bad);
    const json v = kaudit::audit::verdict_from_folder(sub);
    EXPECT_EQ(v["result"], "error") << bad;
    EXPECT_EQ(v["integrity"], "unverified") << bad;
    EXPECT_EQ(v["result_reason"]["phase"], "evidence") << bad;
    EXPECT_NE(v["result_reason"]["reason"].get<std::string>().find("run.json"), std::string::npos) << bad;
    EXPECT_NE(v["result_reason"]["reason"].get<std::string>().find("corrupt"), std::string::npos) << bad;
  }
  fs::remove(sub / "run.json");
  EXPECT_EQ(kaudit::audit::verdict_from_folder(sub)["result"], "not-run") << "no run.json at all is not run";
}

TEST_F(BatchFolder, VerdictOnACorruptSummaryStopsAndChangesNothing) {
  const std::string truncated = R"({"schema": "kaudit-audit/1", "submissions": [{"key": "solutions__cle)";
  write(dir_ / "summary.json", truncated);
  const std::string why = refusal([&] { kaudit::audit::recompute_verdicts(dir_); });
  EXPECT_NE(why.find("summary.json is not valid JSON"), std::string::npos) << why;
  EXPECT_EQ(kaudit::evidence::read_text_file(dir_ / "summary.json"), truncated);
  write(dir_ / "summary.json", R"({"schema": "kaudit-audit/1"})");
  EXPECT_NE(refusal([&] { kaudit::audit::recompute_verdicts(dir_); }).find("lists no submissions"), std::string::npos);
  // Nor while an audit writes the batch.
  write(dir_ / "summary.json", R"({"schema": "kaudit-audit/1", "submissions": []})");
  const kaudit::audit::BatchLock audit(dir_);
  EXPECT_NE(refusal([&] { kaudit::audit::recompute_verdicts(dir_); }).find("being written"), std::string::npos);
}

}  // namespace
