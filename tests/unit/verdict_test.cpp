// The verdict engine on fixture evidence: every combination that matters.
#include "evidence/verdict_document.h"
#include "rules/verdict.h"

#include <gtest/gtest.h>

using namespace kaudit::rules;
using json = nlohmann::json;

namespace {

json finding(const std::string& id, const std::string& source, const std::string& category,
             const std::string& confidence = "high", int line = 3) {
  return {{"id", id},
          {"source", source},
          {"category", category},
          {"confidence", confidence},
          {"location", {{"file", "solution.py"}, {"line", line}, {"column", 0}}},
          {"message", id + " seen."}};
}

json analysis(std::initializer_list<json> findings) {
  return {{"schema", "kaudit-analysis/1"},
          {"files", json::array({{{"path", "solution.py"}, {"seconds", 0.0}, {"findings", json(findings)}}})}};
}

json run(const std::string& result, std::initializer_list<json> findings) {
  json r = {{"schema", "kaudit-run/1"}, {"result", result}, {"findings", json(findings)}, {"timing", json::array()}};
  r["error"] = result == "error" ? json{{"phase", "import"}, {"reason", "segfault"}} : json(nullptr);
  // A run of today's kaudit records what ATen ran, in full unless a test says otherwise.
  r["aten_ops"] = {{"complete", true}, {"groups", json::array()}, {"banned", json::array()}};
  return r;
}

json decide(const json* a, const json* r) {
  return kaudit::evidence::decide_verdict_document("solution.py", a, r, default_rule_pack().verdict);
}

TEST(Verdict, CleanNeedsACompletedRun) {
  const json a = analysis({});
  EXPECT_EQ(decide(&a, nullptr)["integrity"], "not-run");
  EXPECT_EQ(decide(&a, nullptr)["result"], "not-run");
  const json r = run("correct", {});
  EXPECT_EQ(decide(&a, &r)["integrity"], "clean");
  const json crashed = run("error", {});
  const json v = decide(&a, &crashed);
  EXPECT_EQ(v["result"], "error");
  EXPECT_EQ(v["integrity"], "unverified");
  EXPECT_EQ(v["result_reason"]["reason"], "segfault");
}

// An incorrect run says which check failed: verdict.json's result_reason
// was null for one on the H200 (a clean fp8 GEMM's fresh timed call), so
// nobody could see why without opening run.json.
TEST(Verdict, AnIncorrectRunSaysWhichCheckFailed) {
  const json a = analysis({});
  json r = run("incorrect", {});
  r["result_reason"] = "shape 2, timed fresh call 16: 9 of 262144 elements outside tolerance";
  const json v = decide(&a, &r);
  EXPECT_EQ(v["result"], "incorrect");
  EXPECT_EQ(v["result_reason"]["phase"], "correctness");
  EXPECT_EQ(v["result_reason"]["reason"], r["result_reason"]);
}

// A verdict says what isolation its run lacked: the sandbox, or a protection
// of it this machine could not give; a run with every protection has no caveat.
TEST(Verdict, WeakerIsolationIsACaveat) {
  const json a = analysis({});
  json r = run("correct", {});
  r["isolation"] = {{"sandboxed", true}, {"protections", json::array({"user namespace"})}};
  EXPECT_FALSE(decide(&a, &r).contains("caveats") && !decide(&a, &r)["caveats"].empty()) << decide(&a, &r);
  r["isolation"]["weakness"] = "no syscall filter: this kernel refused to load the seccomp filter";
  json v = decide(&a, &r);
  ASSERT_EQ(v["caveats"].size(), 1u) << v;
  EXPECT_EQ(v["caveats"][0], "reached in the sandbox without every protection: no syscall filter: this kernel "
                             "refused to load the seccomp filter");
  EXPECT_EQ(v["integrity"], "clean");  // a caveat, not a finding
  r["isolation"] = {{"sandboxed", false}, {"protections", json::array()}};
  v = decide(&a, &r);
  ASSERT_EQ(v["caveats"].size(), 1u) << v;
  EXPECT_EQ(v["caveats"][0], "reached without the sandbox: the submission ran as kaudit's own user");
}

// A run that failed for the machine (audit/environment.h) is apart from the
// submission's result, never clean, and static evidence still decides.
TEST(Verdict, InfrastructureErrorIsApartFromTheSubmissionsResult) {
  const json a = analysis({});
  json r = run("error", {});
  r["infrastructure"] = {{"cause", "no space left on device"}, {"attempts", 2}};
  const json v = decide(&a, &r);
  EXPECT_EQ(v["result"], "infrastructure-error");
  EXPECT_EQ(v["integrity"], "unverified");
  EXPECT_NE(v["integrity_reason"].get<std::string>().find("no space left on device"), std::string::npos) << v.dump();
  const json cheat = analysis({finding("monkeypatching", "static", "cheat")});
  EXPECT_EQ(decide(&cheat, &r)["integrity"], "cheat");
}

TEST(Verdict, BannedCallThatRunsIsCheatButDeadBannedCallIsSuspicious) {
  const json a = analysis({finding("banned-call", "static", "cheat")});
  const json ran = run("correct", {finding("banned-library-kernel", "trace", "cheat")});
  const json v = decide(&a, &ran);
  EXPECT_EQ(v["integrity"], "cheat");
  EXPECT_EQ(v["deciding"].size(), 2u) << "the static call and its runtime confirmation both decide";

  const json quiet = run("correct", {});
  const json w = decide(&a, &quiet);
  EXPECT_EQ(w["integrity"], "clean");
  ASSERT_EQ(w["beside"].size(), 1u);
  EXPECT_EQ(w["beside"][0]["category"], "suspicious");
  EXPECT_NE(w["beside"][0]["message"].get<std::string>().find("not confirmed"), std::string::npos);
}

// Issue 15, item 6: on the CPU no trace confirms a banned call; the record of
// the ATen ops the submission ran does, and without a record that can vouch
// for the calls the verdict is unverified, never clean.
TEST(Verdict, BannedCallIsConfirmedByTheAtenOpRecord) {
  for (const char* id : {"banned-call", "fallback-to-banned", "no-authored-kernel"}) {
    const json a = analysis({finding(id, "static", "cheat")});
    const json ran = run("correct", {finding("banned-aten-op", "probe", "cheat")});
    const json v = decide(&a, &ran);
    EXPECT_EQ(v["integrity"], "cheat") << id;
    EXPECT_EQ(v["deciding"].size(), 2u) << id << ": the static call and the op that ran both decide";
  }
}

TEST(Verdict, BannedCallWithoutACompleteOpRecordIsUnverified) {
  const json a = analysis({finding("banned-call", "static", "cheat")});
  json old = run("correct", {});
  old.erase("aten_ops");  // a run document of an older kaudit
  const json v = decide(&a, &old);
  EXPECT_EQ(v["integrity"], "unverified");
  ASSERT_TRUE(v["integrity_reason"].is_string());
  EXPECT_NE(v["integrity_reason"].get<std::string>().find("banned-call"), std::string::npos) << v["integrity_reason"];
  EXPECT_NE(v["integrity_reason"].get<std::string>().find("ATen"), std::string::npos) << v["integrity_reason"];
  EXPECT_EQ(v["beside"][0]["category"], "suspicious");

  json hidden = run("correct", {});
  hidden["aten_ops"]["complete"] = false;
  hidden["aten_ops"]["incomplete"] = "torch._C._DisableTorchDispatch was used during a recorded call";
  const json w = decide(&a, &hidden);
  EXPECT_EQ(w["integrity"], "unverified");
  EXPECT_NE(w["integrity_reason"].get<std::string>().find("_DisableTorchDispatch"), std::string::npos)
      << w["integrity_reason"];

  // Nothing for the record to confirm: its gaps do not matter.
  const json none = analysis({});
  EXPECT_EQ(decide(&none, &hidden)["integrity"], "clean");
  EXPECT_EQ(decide(&none, &old)["integrity"], "clean");
  // Deciding evidence still decides.
  const json caught = run("correct", {finding("output-cached-on-identity", "probe", "cheat")});
  json caught_hidden = caught;
  caught_hidden["aten_ops"] = hidden["aten_ops"];
  EXPECT_EQ(decide(&a, &caught_hidden)["integrity"], "cheat");
}

TEST(Verdict, StaticAloneDecidesOnlyForPresenceOffencesAtHighConfidence) {
  const json tamper = analysis({finding("monkeypatching", "static", "cheat", "high")});
  EXPECT_EQ(decide(&tamper, nullptr)["integrity"], "cheat") << "harness tampering needs no run";
  const json weak = analysis({finding("monkeypatching", "static", "cheat", "medium")});
  EXPECT_EQ(decide(&weak, nullptr)["integrity"], "not-run");
  const json cache = analysis({finding("output-cached-on-identity", "static", "cheat", "high")});
  EXPECT_EQ(decide(&cache, nullptr)["integrity"], "not-run") << "a cache must be shown to hit";
}

TEST(Verdict, RuntimeOutranksStatic) {
  const json a = analysis({});
  const json r = run("correct", {finding("output-cached-on-identity", "probe", "cheat")});
  EXPECT_EQ(decide(&a, &r)["integrity"], "cheat");
  const json low = run("correct", {finding("output-reused", "probe", "benchmark-aware", "low")});
  EXPECT_EQ(decide(&a, &low)["integrity"], "clean") << "below the runtime confidence floor";
}

TEST(Verdict, CheatOutranksBenchmarkAware) {
  const json a = analysis({finding("shape-hardcoded", "static", "benchmark-aware")});
  const json r = run("correct", {finding("work-skipped-on-repeat", "probe", "cheat")});
  const json v = decide(&a, &r);
  EXPECT_EQ(v["integrity"], "cheat");
  EXPECT_EQ(v["reasons"].size(), 2u);
  const json only_ba = run("correct", {});
  EXPECT_EQ(decide(&a, &only_ba)["integrity"], "benchmark-aware");
}

TEST(Verdict, GraphKeyedOnPointersIsBenchmarkAwareWhenFreshInputsShowIt) {
  const json a = analysis({finding("cuda-graph", "static", "benchmark-aware")});
  const json r = run("correct", {finding("speedup-vanishes-with-fresh-inputs", "timing", "benchmark-aware")});
  EXPECT_EQ(decide(&a, &r)["integrity"], "benchmark-aware");
}

TEST(Verdict, SelfTimingDecidesOnlyWhenTheTraceSawATimerReadInACall) {
  const json a = analysis({finding("self-timing", "static", "benchmark-aware", "high", 72)});
  const json quiet = run("correct", {});
  const json v = decide(&a, &quiet);
  EXPECT_EQ(v["integrity"], "clean") << "code that times itself but never did while measured: a suspicion";
  EXPECT_EQ(v["beside"][0]["category"], "suspicious");
  const json seen = run("correct", {finding("timer-read-in-call", "trace", "benchmark-aware")});
  const json w = decide(&a, &seen);
  EXPECT_EQ(w["integrity"], "benchmark-aware");
  EXPECT_EQ(w["deciding"].size(), 2u) << "the trace's reads, and the static lines they confirm";
}

TEST(Verdict, ACompletedRunWhoseTraceLacksCallsIsUnverifiedNotClean) {
  json r = run("correct", {});
  r["trace_incomplete"] = "the trace holds 3 of the 120 calls the harness made";
  const json v = decide(nullptr, &r);
  EXPECT_EQ(v["integrity"], "unverified");
  EXPECT_EQ(v["integrity_reason"], r["trace_incomplete"]);
  // Deciding evidence still decides.
  json c = run("correct", {finding("output-cached-on-identity", "probe", "cheat")});
  c["trace_incomplete"] = r["trace_incomplete"];
  EXPECT_EQ(decide(nullptr, &c)["integrity"], "cheat");
  EXPECT_TRUE(decide(nullptr, &c)["integrity_reason"].is_null());
}

TEST(Verdict, IncorrectAndCleanAreIndependent) {
  const json r = run("incorrect", {});
  const json v = decide(nullptr, &r);
  EXPECT_EQ(v["result"], "incorrect");
  EXPECT_EQ(v["integrity"], "clean");
  EXPECT_FALSE(v["evidence"]["static"].get<bool>());
}

TEST(Verdict, DeterministicAndRejectsMalformedDocuments) {
  const json a = analysis({finding("banned-call", "static", "cheat", "high", 9), finding("dynamic-code", "static", "cheat", "high", 2)});
  const json r = run("correct", {finding("banned-library-kernel", "trace", "cheat")});
  EXPECT_EQ(decide(&a, &r).dump(), decide(&a, &r).dump());
  const json bad_schema = {{"schema", "kaudit-run/9"}, {"result", "correct"}};
  EXPECT_THROW(decide(nullptr, &bad_schema), std::runtime_error);
  const json bad_result = {{"schema", "kaudit-run/1"}, {"result", "great"}};
  EXPECT_THROW(decide(nullptr, &bad_result), std::runtime_error);
  const json bad_finding = analysis({{{"id", "x"}}});
  EXPECT_THROW(decide(&bad_finding, nullptr), std::exception);
}

}  // namespace

// A run that looked at every graded call with complete evidence: whole
// trace and op record, every mode timed with its samples checked.
json thorough_run() {
  json r = run("correct", {});
  r["trace"] = {{"complete", true}, {"groups", json::array()}};
  json modes = json::object();
  for (const char* m : {"bench", "fresh", "rewrite"}) modes[m] = {{"n", 20}, {"samples_passed", true}};
  r["timing"] = json::array({{{"shape_index", 0}, {"modes", modes}}, {{"shape_index", 1}, {"modes", modes}}});
  return r;
}

// Issue 28, item 3: a static lead whose every confirming check ran over the
// graded calls and stayed silent is refuted by the run, and shown so: an
// info finding beside a clean verdict, and the verdict's `refuted` list.
TEST(Verdict, ALeadEveryConfirmingCheckRanOnIsRefuted) {
  const json a = analysis({finding("fallback-to-banned", "static", "cheat", "medium", 40)});
  const json r = thorough_run();
  const json v = decide(&a, &r);
  EXPECT_EQ(v["integrity"], "clean") << v.dump(1);
  ASSERT_EQ(v["refuted"].size(), 1u) << v.dump(1);
  EXPECT_EQ(v["refuted"][0]["id"], "fallback-to-banned");
  EXPECT_EQ(v["refuted"][0]["line"], 40);
  EXPECT_EQ(v["refuted"][0]["by"], json({"banned-library-kernel", "banned-aten-op"}));
  ASSERT_EQ(v["beside"].size(), 1u);
  EXPECT_EQ(v["beside"][0]["category"], "info");
  EXPECT_NE(v["beside"][0]["message"].get<std::string>().find("refuted at run time"), std::string::npos);
}

// Refuted needs every confirming check: without the trace (a CPU run, or a
// trace that lacks calls) or without the op record the lead stays a lead.
TEST(Verdict, ALeadIsNotRefutedWhereAConfirmingCheckCouldNotLook) {
  const json a = analysis({finding("fallback-to-banned", "static", "cheat", "medium", 40),
                           finding("cuda-graph", "static", "benchmark-aware", "medium", 50)});
  json no_trace = thorough_run();
  no_trace.erase("trace");
  json v = decide(&a, &no_trace);
  ASSERT_EQ(v["refuted"].size(), 1u) << v.dump(1);
  EXPECT_EQ(v["refuted"][0]["id"], "cuda-graph") << "fresh and rewrite need no trace";
  json ops_partial = thorough_run();
  ops_partial["aten_ops"]["complete"] = false;
  v = decide(&a, &ops_partial);
  for (const auto& x : v["refuted"]) EXPECT_NE(x["id"], "fallback-to-banned") << v.dump(1);
  json rewrite_failed = thorough_run();
  rewrite_failed["timing"][1]["modes"]["rewrite"]["samples_passed"] = false;
  rewrite_failed["trace"] = nullptr;
  v = decide(&a, &rewrite_failed);
  EXPECT_TRUE(v["refuted"].empty()) << v.dump(1);
  // Only a correct run refutes anything.
  json incorrect = thorough_run();
  incorrect["result"] = "incorrect";
  EXPECT_TRUE(decide(&a, &incorrect)["refuted"].empty());
}

// A lead the run confirmed decides; a static finding that decides alone is
// never refuted, whatever the run checked.
TEST(Verdict, ConfirmedAndPresenceOffencesAreNotRefuted) {
  const json a = analysis({finding("fallback-to-banned", "static", "cheat", "medium", 40),
                           finding("monkeypatching", "static", "cheat", "high", 12)});
  json r = thorough_run();
  r["findings"] = json::array({finding("banned-aten-op", "probe", "cheat")});
  const json v = decide(&a, &r);
  EXPECT_EQ(v["integrity"], "cheat");
  EXPECT_TRUE(v["refuted"].empty()) << v.dump(1);
}
