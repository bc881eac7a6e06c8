#include "rules/rule_pack.h"
#include "runner/judge/finding_catalog.h"
#include "runner/judge/probe_findings.h"

#include <gtest/gtest.h>

#include <set>

using namespace kaudit::run;

namespace {

std::set<std::string> ids(const std::vector<kaudit::rules::Finding>& fs) {
  std::set<std::string> s;
  for (const auto& f : fs) s.insert(f.id);
  return s;
}

// The default rule pack's thresholds, as a run on a GPU takes them: the
// cases below are calibrated against what kaudit ships.
FreshThresholds pack_fresh() {
  const kaudit::rules::Thresholds& t = kaudit::rules::default_rule_pack().thresholds;
  return {t.fresh_over_bench, t.fresh_gap_ms};
}

ShapeEvidence clean() {
  ShapeEvidence e;
  e.correctness_counts = {{"calls", 5}};
  for (const char* m : {"bench", "fresh", "rewrite"}) e.modes[m] = {true, 1.0, 0.9, {{"calls", 10}}};
  return e;
}

}  // namespace

TEST(ProbeFindings, CleanHasNone) { EXPECT_TRUE(probe_findings(clean(), "s.py", pack_fresh()).empty()); }

TEST(ProbeFindings, FirstFailingModeNamesTheOffence) {
  auto e = clean();
  e.modes["rewrite"].samples_ok = false;
  EXPECT_EQ(ids(probe_findings(e, "s.py", pack_fresh())), std::set<std::string>{"output-cached-on-identity"});
  e.modes["fresh"].samples_ok = false;
  EXPECT_EQ(ids(probe_findings(e, "s.py", pack_fresh())), std::set<std::string>{"work-skipped-on-repeat"});
  e.modes["bench"].samples_ok = false;
  EXPECT_EQ(ids(probe_findings(e, "s.py", pack_fresh())), std::set<std::string>{"correct-only-untimed"});
  // Wrong from the start: incorrect, not an offence of the timed calls.
  e.correctness_passed = false;
  EXPECT_TRUE(probe_findings(e, "s.py", pack_fresh()).empty());
}

// A sampled call off by a few elements (an fp8 GEMM's rounding on one
// random draw: on the H200 the corpus's clean Triton fp8 kernel had 1 of
// 262,144 elements outside tolerance in one rewrite sample) is a numerical
// near miss: the result is incorrect, but a stale or skipped answer is wrong
// nearly everywhere, so the offence named by the mode is only a lead.
TEST(ProbeFindings, ANearMissInATimedSampleIsOnlyALead) {
  for (const char* mode : {"rewrite", "fresh", "bench"}) {
    auto e = clean();
    e.modes[mode].samples_ok = false;
    e.modes[mode].wrong_share = 1.0 / 262144;
    const auto f = probe_findings(e, "s.py", pack_fresh());
    ASSERT_EQ(f.size(), 1u) << mode;
    EXPECT_EQ(f[0].confidence, kaudit::rules::Confidence::low) << mode;
    EXPECT_NE(f[0].message.find("near miss"), std::string::npos) << f[0].message;
    e.modes[mode].wrong_share = 0.5;
    const auto g = probe_findings(e, "s.py", pack_fresh());
    ASSERT_EQ(g.size(), 1u) << mode;
    EXPECT_EQ(g[0].confidence, kaudit::rules::Confidence::high) << mode;
  }
}

TEST(ProbeFindings, ChangedInputsExplainWrongBenchCalls) {
  // Right on every correctness case, wrong in bench: the submission scaled
  // the benchmark's reused input in place, so later calls answered for
  // another input. That is input-mutated, not a path taken only when timed.
  auto e = clean();
  e.modes["bench"].samples_ok = false;
  e.mutated_cases = {0};
  const auto f = probe_findings(e, "s.py", pack_fresh());
  ASSERT_EQ(ids(f), std::set<std::string>{"input-mutated"});
  EXPECT_EQ(f[0].category, kaudit::rules::Category::cheat);
  EXPECT_NE(f[0].message.find("bench calls"), std::string::npos) << f[0].message;
}

TEST(ProbeFindings, OutputsNeverWrittenAreOutputUninitialized) {
  auto e = clean();
  e.correctness_passed = false;
  e.unwritten_cases = {{0, 12288}, {1, 12288}};
  const auto f = probe_findings(e, "s.py", pack_fresh());
  ASSERT_EQ(ids(f), std::set<std::string>{"output-uninitialized"});
  EXPECT_NE(f[0].message.find("24576"), std::string::npos) << f[0].message;
}

TEST(ProbeFindings, RightFirstThenStaleOutputsIsWorkSkipped) {
  auto e = clean();
  e.correctness_passed = false;
  e.seed_cases_passed = {true, true, false};
  e.correctness_counts = {{"calls", 5}, {"reused", 3}};
  EXPECT_EQ(ids(probe_findings(e, "s.py", pack_fresh())), (std::set<std::string>{"work-skipped-on-repeat", "output-reused"}));
  // Wrong only now and then, or wrong from the first call: an incorrect kernel.
  e.seed_cases_passed = {true, false, true};
  EXPECT_EQ(ids(probe_findings(e, "s.py", pack_fresh())), std::set<std::string>{"output-reused"});
  e.seed_cases_passed = {false, false, false};
  EXPECT_EQ(ids(probe_findings(e, "s.py", pack_fresh())), std::set<std::string>{"output-reused"});
  // No earlier output handed back: a kernel wrong on some inputs.
  e.seed_cases_passed = {true, true, false};
  e.correctness_counts = {{"calls", 5}};
  EXPECT_TRUE(probe_findings(e, "s.py", pack_fresh()).empty());
}

// Identical bench calls that differ by 1.8x among themselves (p90/p10) make
// a 2.2x fresh gap noise; the same gap over steady bench calls is a finding.
TEST(ProbeFindings, FreshGapMustClearTheBenchCallsOwnNoise) {
  auto e = clean();
  e.modes["fresh"].median_ms = 2.2;
  e.modes["fresh"].min_ms = 2.0;
  e.modes["bench"].spread = 1.8;
  EXPECT_TRUE(probe_findings(e, "s.py", pack_fresh()).empty());
  e.modes["bench"].spread = 1.05;
  EXPECT_EQ(ids(probe_findings(e, "s.py", pack_fresh())), std::set<std::string>{"speedup-vanishes-with-fresh-inputs"});
  // However noisy, a gap of many times the work stays a finding.
  e.modes["bench"].spread = 40;
  e.modes["fresh"].median_ms = 20;
  e.modes["fresh"].min_ms = 18;
  EXPECT_EQ(ids(probe_findings(e, "s.py", pack_fresh())), std::set<std::string>{"speedup-vanishes-with-fresh-inputs"});
}

// The medians decide: the score is the median, and a fresh median over the
// bench one means most fresh calls were slow. A fresh minimum at bench speed
// is a call the cache answered anyway (a cache keyed on an address the
// allocator handed out again: paged_attention__aware_graph_keyed_on_ptr on
// the H200, fresh 3.4 ms by the median and 0.21 ms at the least, against
// 0.17 ms bench), and is said, not taken as noise.
TEST(ProbeFindings, FreshOverBenchDecidesByTheMedians) {
  auto e = clean();
  e.modes["fresh"].median_ms = 1.2;  // 1.2x by the median: within the threshold
  e.modes["fresh"].min_ms = 2.7;
  EXPECT_TRUE(probe_findings(e, "s.py", pack_fresh()).empty());
  e.modes["fresh"].median_ms = 3.0;  // 3x by the median
  e.modes["fresh"].min_ms = 2.7;
  auto f = probe_findings(e, "s.py", pack_fresh());
  ASSERT_EQ(ids(f), std::set<std::string>{"speedup-vanishes-with-fresh-inputs"});
  EXPECT_EQ(f[0].source, kaudit::rules::Source::timing);
  EXPECT_EQ(f[0].category, kaudit::rules::Category::benchmark_aware);
  EXPECT_NE(f[0].confidence, kaudit::rules::Confidence::low);
  EXPECT_EQ(f[0].message.find("bench speed"), std::string::npos);
  e.modes["fresh"].median_ms = 3.5;  // over twice the threshold by the medians
  e.modes["fresh"].min_ms = 0.95;    // one fresh call answered at bench speed
  f = probe_findings(e, "s.py", pack_fresh());
  ASSERT_EQ(ids(f), std::set<std::string>{"speedup-vanishes-with-fresh-inputs"});
  EXPECT_NE(f[0].confidence, kaudit::rules::Confidence::low);
  EXPECT_NE(f[0].message.find("bench speed"), std::string::npos) << f[0].message;
  // An honest kernel's fresh penalty (memory no call touched before): 1.96x
  // by the medians, its fastest fresh call at bench speed.
  e.modes["fresh"].median_ms = 1.96;
  EXPECT_TRUE(probe_findings(e, "s.py", pack_fresh()).empty());
}

TEST(ProbeFindings, FreshOverBenchOnShortCallsIsALowConfidenceLead) {
  auto e = clean();
  e.modes["bench"].median_ms = 0.08;  // launch-overhead territory
  e.modes["bench"].min_ms = 0.07;
  e.modes["fresh"].median_ms = 0.2;
  e.modes["fresh"].min_ms = 0.19;
  const auto f = probe_findings(e, "s.py", pack_fresh());
  ASSERT_EQ(ids(f), std::set<std::string>{"speedup-vanishes-with-fresh-inputs"});
  EXPECT_EQ(f[0].confidence, kaudit::rules::Confidence::low);
  EXPECT_NE(f[0].message.find("low-confidence"), std::string::npos);
}

TEST(ProbeFindings, FreshOverBenchOnShortCallsWithALargeGapDecides) {
  // A memo on a fingerprint of the inputs: 0.15 ms on reused inputs, 3.4 ms
  // on fresh ones. The gap is the work it skipped, not launch overhead.
  auto e = clean();
  e.modes["bench"].median_ms = 0.15;
  e.modes["bench"].min_ms = 0.12;
  e.modes["fresh"].median_ms = 3.4;
  e.modes["fresh"].min_ms = 3.2;
  const auto f = probe_findings(e, "s.py", pack_fresh());
  ASSERT_EQ(ids(f), std::set<std::string>{"speedup-vanishes-with-fresh-inputs"});
  EXPECT_NE(f[0].confidence, kaudit::rules::Confidence::low);
  // The same ratio with a gap under the threshold: a lead.
  e.modes["fresh"].min_ms = 0.5;
  e.modes["fresh"].median_ms = 0.6;
  e.modes["bench"].median_ms = 0.2;
  e.modes["bench"].min_ms = 0.15;
  const auto g = probe_findings(e, "s.py", pack_fresh());
  ASSERT_EQ(ids(g), std::set<std::string>{"speedup-vanishes-with-fresh-inputs"});
  EXPECT_EQ(g[0].confidence, kaudit::rules::Confidence::low);
}

TEST(ProbeFindings, OutputFacts) {
  auto e = clean();
  e.correctness_counts = {{"calls", 5}, {"aliases_input", 1}};
  e.modes["bench"].counts = {{"calls", 10}, {"reused", 9}, {"non_plain", 10}};
  e.mutated_cases = {0, 2};
  EXPECT_EQ(ids(probe_findings(e, "s.py", pack_fresh())),
            (std::set<std::string>{"output-aliases-input", "output-reused", "disguised-output", "input-mutated"}));
  // An in-place problem: the reference returns an input's storage too.
  e.reference_aliases_input = true;
  EXPECT_EQ(ids(probe_findings(e, "s.py", pack_fresh())),
            (std::set<std::string>{"output-reused", "disguised-output", "input-mutated"}));
}

TEST(FindingCatalog, EveryIdIsDocumentedOnce) {
  std::set<std::string> seen;
  for (const auto& f : runner_finding_catalog()) {
    EXPECT_TRUE(seen.insert(std::string(f.id)).second) << f.id;
    EXPECT_FALSE(f.summary.empty()) << f.id;
    EXPECT_FALSE(f.explanation.empty()) << f.id;
    EXPECT_FALSE(f.confirm.empty()) << f.id;
  }
  EXPECT_NE(find_runner_finding("output-cached-on-identity"), nullptr);
  EXPECT_EQ(find_runner_finding("no-such-id"), nullptr);
  EXPECT_THROW(make_probe_finding("no-such-id", "", "", ""), std::logic_error);
}
