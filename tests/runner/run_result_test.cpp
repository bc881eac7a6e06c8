// RunResult: the one place run.json is written, and what the verdict reads of it.
#include "runner/plan/run_result.h"

#include "runner/judge/probe_findings.h"

#include <gtest/gtest.h>

using kaudit::run::RunResult;
using json = nlohmann::json;

TEST(RunResult, FirstErrorWinsAndMakesTheResultError) {
  RunResult r;
  r.all_correct = true;
  EXPECT_EQ(r.facts().result, "correct");
  r.set_error("correctness", "results missing for shape 0");
  r.set_error("timing", "timings missing");
  const json doc = r.to_json();
  EXPECT_EQ(doc["result"], "error");
  EXPECT_EQ(doc["error"]["phase"], "correctness") << "the first error is the one reported";
  EXPECT_FALSE(doc["error"].contains("detail"));
  EXPECT_EQ(r.facts().error, doc["error"]);
}

TEST(RunResult, IncorrectCarriesItsReasonAndCleanRunsNone) {
  RunResult r;
  r.all_correct = false;
  r.result_reason = "shape 0, seed case 1: 3 mismatches";
  json doc = r.to_json();
  EXPECT_EQ(doc["result"], "incorrect");
  EXPECT_EQ(doc["result_reason"], r.result_reason);
  EXPECT_TRUE(doc["error"].is_null());
  r.all_correct = true;
  doc = r.to_json();
  EXPECT_EQ(doc["result"], "correct");
  EXPECT_FALSE(doc.contains("result_reason"));
  EXPECT_EQ(doc["schema"], "kaudit-run/1");
  for (const char* optional : {"shapes", "trace", "trace_incomplete", "hardware", "device_wait_seconds", "temp_dir"})
    EXPECT_FALSE(doc.contains(optional)) << optional << " appears only when the run has it";
}

TEST(RunResult, FindingsAreSortedAndDeduplicatedOnce) {
  RunResult r;
  r.all_correct = true;
  const auto f = kaudit::run::make_probe_finding("output-reused", "solution.py", "bench", "Reused.");
  r.findings = {f, f};
  r.trace_incomplete = "the trace holds 3 of the 9 calls the harness made";
  const auto facts = r.facts();
  EXPECT_EQ(facts.findings.size(), 1u);
  EXPECT_EQ(facts.trace_incomplete, r.trace_incomplete);
  EXPECT_EQ(r.to_json()["findings"].size(), 1u);
  EXPECT_EQ(r.to_json()["trace_incomplete"], *r.trace_incomplete);
}
