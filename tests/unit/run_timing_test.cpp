// run.json's timing[]: one writer and one reader (evidence/run_timing.h).
#include "evidence/run_timing.h"

#include <gtest/gtest.h>

namespace {
using kaudit::evidence::ShapeTiming;
using nlohmann::json;

// A shape as a GPU run writes it: three modes, throughput, a clock check.
json written_shape() {
  return json::parse(R"({
    "shape_index": 2, "shape": {"M": 32, "N": 8192},
    "work": {"flops": 1.0e9, "bytes": null, "regime": "compute"},
    "fresh_over_bench": 1.25,
    "modes": {
      "bench": {"n": 20, "median_ms": 0.4, "mean_ms": 0.41, "min_ms": 0.38, "max_ms": 0.5, "p10_ms": 0.39,
                "p90_ms": 0.45, "stdev_ms": 0.02, "samples": [{"call": 3, "status": "passed"}],
                "samples_passed": true, "output_checks": {"same_storage": 0}, "tflops": 2.5,
                "percent_of_compute_peak": 0.25, "percent_of_peak": 0.25,
                "runner_clock": {"checked": 20}},
      "fresh": {"n": 20, "median_ms": 0.5, "mean_ms": 0.5, "min_ms": 0.5, "max_ms": 0.5, "p10_ms": 0.5,
                "p90_ms": 0.5, "stdev_ms": 0.0, "samples": [], "samples_passed": true, "output_checks": {},
                "output_types": ["torch.bfloat16"], "percent_of_peak": null},
      "rewrite": {"samples": [], "samples_passed": false, "output_checks": {}, "version_counters_moved": 3}
    }})");
}

TEST(RunTiming, WhatIsWrittenReadsBackTheSame) {
  const json doc = written_shape();
  EXPECT_EQ(kaudit::evidence::to_json(kaudit::evidence::shape_timing_from_json(doc, 0)), doc);
}

TEST(RunTiming, ReadsWhatItNeedsOfADocument) {
  const ShapeTiming t = kaudit::evidence::shape_timing_from_json(written_shape(), 0);
  EXPECT_EQ(t.shape_index, 2);
  ASSERT_TRUE(t.modes.at("bench").median_ms());
  EXPECT_DOUBLE_EQ(*t.modes.at("bench").median_ms(), 0.4);
  EXPECT_DOUBLE_EQ(*t.modes.at("bench").percent_of_peak(), 0.25);
  EXPECT_FALSE(t.modes.at("fresh").percent_of_peak());  // null: no peak known
  EXPECT_FALSE(t.modes.at("rewrite").median_ms());       // no call timed
  EXPECT_EQ(t.modes.at("rewrite").version_counters_moved, 3);
}

TEST(RunTiming, AHandEditedDocumentGivesWhatItHas) {
  json doc = written_shape();
  doc.erase("fresh_over_bench");              // computed again from the medians
  doc["shape_index"] = "two";                  // the position instead
  doc["modes"]["bench"]["median_ms"] = "fast";  // no statistics
  doc["modes"]["fresh"] = 7;
  const ShapeTiming t = kaudit::evidence::shape_timing_from_json(doc, 5);
  EXPECT_EQ(t.shape_index, 5);
  EXPECT_FALSE(t.modes.at("bench").median_ms());
  EXPECT_FALSE(t.modes.at("fresh").median_ms());
  EXPECT_FALSE(t.fresh_over_bench);
  EXPECT_EQ(kaudit::evidence::timing_from_json(json::array({1, doc, "x"})).size(), 1u);
}

TEST(RunTiming, StatisticsOfTheTimedCalls) {
  EXPECT_FALSE(kaudit::evidence::timing_stats({}));
  const auto s = kaudit::evidence::timing_stats({4, 1, 3, 2});
  ASSERT_TRUE(s);
  EXPECT_EQ(s->n, 4u);
  EXPECT_DOUBLE_EQ(s->median_ms, 2.5);
  EXPECT_DOUBLE_EQ(s->min_ms, 1);
  EXPECT_DOUBLE_EQ(s->max_ms, 4);
  ShapeTiming t;
  t.modes["bench"].stats = kaudit::evidence::timing_stats({2});
  t.modes["fresh"].stats = kaudit::evidence::timing_stats({3});
  t.set_fresh_over_bench();
  EXPECT_DOUBLE_EQ(*t.fresh_over_bench, 1.5);
}

}  // namespace
