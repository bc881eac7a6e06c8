// run.json's timing[], correctness[], phases[], first_calls[], input_probes
// and settings: one writer and one reader each (evidence/run_timing.h,
// run_correctness.h, run_phases.h, run_input_probes.h, run_settings.h;
// state_dict's round trip is in tests/runner/aten_ops_test.cpp, beside its writer).
#include "evidence/run_aten_ops.h"
#include "evidence/run_checks.h"
#include "evidence/run_correctness.h"
#include "evidence/run_environment.h"
#include "evidence/run_input_probes.h"
#include "evidence/run_phases.h"
#include "evidence/run_settings.h"
#include "evidence/run_timing.h"
#include "evidence/run_trace.h"

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

// A shape's correctness as a run writes it: a passed seed case, a failed
// stress case with the poison left, a case not run.
json written_correctness() {
  return json::parse(R"({
    "shape_index": 1, "shape": {"n": 64}, "passed": false,
    "stream_order": {"outputs": 1, "differing": 0}, "reference_habits": {"changes_inputs": [], "aliases_input": false},
    "cases": [
      {"case": 0, "seed": 42, "scale": 1.0, "kind": "seed", "status": "passed", "max_abs_error": 0.001,
       "max_rel_error": 0.01, "mismatches": 2, "tolerated_mismatches": 2, "inputs_from": "file"},
      {"case": 3, "seed": 42, "scale": 1000.0, "kind": "stress", "status": "failed", "reason": "12 elements differ",
       "max_abs_error": 9.0, "max_rel_error": 1.0, "mismatches": 12, "unwritten_elements": 12, "atol": 0.5,
       "inputs_mutated": [0], "inputs_from": "seed"},
      {"case": 4, "seed": 7, "scale": 1.0, "kind": "seed", "status": "not run", "inputs_from": "file"}
    ]})");
}

TEST(RunCorrectness, WhatIsWrittenReadsBackTheSame) {
  const json doc = written_correctness();
  EXPECT_EQ(kaudit::evidence::to_json(kaudit::evidence::shape_correctness_from_json(doc, 0)), doc);
}

TEST(RunCorrectness, ReadsWhatItNeedsOfADocument) {
  const auto s = kaudit::evidence::shape_correctness_from_json(written_correctness(), 0);
  EXPECT_EQ(s.shape_index, 1);
  EXPECT_FALSE(s.passed);
  ASSERT_EQ(s.cases.size(), 3u);
  EXPECT_TRUE(s.cases[0].passed());
  EXPECT_EQ(s.cases[1].index, 3);
  EXPECT_EQ(s.cases[1].unwritten_elements, 12u);
  EXPECT_EQ(s.cases[1].inputs_mutated, std::vector<int>{0});
  EXPECT_EQ(s.cases[1].reason, "12 elements differ");
  EXPECT_EQ(s.cases[2].status, "not run");
}

TEST(RunCorrectness, AHandEditedDocumentGivesWhatItHas) {
  json doc = written_correctness();
  doc["passed"] = "yes";                        // not a boolean: not passed
  doc["cases"][1]["unwritten_elements"] = -3;   // nonsense: none
  doc["cases"][1]["inputs_mutated"] = "all";    // not a list: none
  doc["cases"].push_back(17);                   // not a case: skipped
  const auto s = kaudit::evidence::shape_correctness_from_json(doc, 0);
  EXPECT_FALSE(s.passed);
  ASSERT_EQ(s.cases.size(), 3u);
  EXPECT_EQ(s.cases[1].unwritten_elements, 0u);
  EXPECT_TRUE(s.cases[1].inputs_mutated.empty());
  EXPECT_TRUE(kaudit::evidence::correctness_from_json(json::object()).empty());
}

// Phases and first calls as a run writes them, read back the same.
TEST(RunPhases, WhatIsWrittenReadsBackTheSame) {
  const json phases = json::parse(R"([
    {"process": "reference", "phase": "import", "seconds": 6.2, "began_s": 0.01},
    {"process": "submission", "phase": "timing", "seconds": 0.4, "shape": 2, "mode": "rewrite"},
    {"process": "reference", "phase": "expected outputs", "seconds": 2.4, "jobs": 60},
    {"process": "runner", "phase": "comparison", "seconds": 0.9, "checks_begun_early": 51, "checks_read_back": 51}])");
  EXPECT_EQ(kaudit::evidence::to_json(kaudit::evidence::phases_from_json(phases)), phases);
  const json calls = json::parse(R"J([
    {"phase": "correctness", "shape": 0, "seconds": 8.4, "build_processes": ["ptxas", "python3 (children's CPU time)"],
     "lent_while_building_s": 3.5},
    {"phase": "probe", "shape": 3, "seconds": 1.1}])J");
  EXPECT_EQ(kaudit::evidence::to_json(kaudit::evidence::first_calls_from_json(calls)), calls);
}

TEST(RunPhases, AStepNamesItsPhaseShapeModeAndCounts) {
  const auto p = kaudit::evidence::run_phase("runner", {{"phase", "comparison"}, {"checks_begun_early", 3}}, 1.5);
  EXPECT_EQ(p.phase, "comparison");
  EXPECT_FALSE(p.shape);
  EXPECT_EQ(p.counts["checks_begun_early"], 3);
  const auto first = kaudit::evidence::first_calls_from_json(json::parse(R"([7, {"shape": "x", "seconds": null}])"));
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].shape, -1);
  EXPECT_EQ(first[0].seconds, 0);
}

}  // namespace

TEST(RunTrace, WhatIsWrittenReadsBackTheSame) {
  const json groups = json::parse(R"([
    {"phase": "correctness", "shape": "0", "mode": "", "calls": 5, "median_kernels": 3, "median_gpu_ms": 0.4,
     "median_own_share": 1, "calls_without_gpu_work": 0, "late_kernels": 0, "graph_launches": 0, "timer_reads": 2,
     "library_gpu_ms": {"libtorch_cuda": 0.01}},
    {"phase": "timed", "shape": "0", "mode": "bench", "calls": 20, "median_kernels": 1, "median_gpu_ms": 0.2,
     "median_own_share": 1, "calls_without_gpu_work": 0, "late_kernels": 0, "graph_launches": 0, "timer_reads": 0,
     "library_gpu_ms": {}, "median_busy_ms": 0.21, "median_measured_ms": 0.22, "calls_outlasting_timing": 0}])");
  EXPECT_EQ(kaudit::evidence::to_json(kaudit::evidence::trace_groups_from_json(groups)), groups);
  const json shares = json::parse(R"([
    {"shape": "0", "mode": "bench", "own_ms": 18.2, "library_ms": 0.22, "glue_ms": 1.1,
     "reference_glue_ms_per_call": 17.2, "library_counted_ms": 0.0, "share": 1.0},
    {"shape": "1", "mode": "bench", "own_ms": 0.3, "library_ms": 2.7, "glue_ms": 0,
     "reference_glue_ms_per_call": null, "library_counted_ms": 2.7, "share": 0.1}])");
  EXPECT_EQ(kaudit::evidence::to_json(kaudit::evidence::authored_shares_from_json(shares)), shares);
  const json glue = json::parse(R"({"status": "ok", "shapes": [
    {"shape": "0", "calls": 8, "glue_ms_per_call": 17.2, "glue_kernels": 9, "banned_ms_per_call": 143.3, "counted": true}]})");
  EXPECT_EQ(kaudit::evidence::to_json(kaudit::evidence::reference_glue_from_json(glue)), glue);
  const json untraced = {{"status", "unavailable"}, {"reason", "the reference's process was not traced"}};
  EXPECT_EQ(kaudit::evidence::to_json(kaudit::evidence::reference_glue_from_json(untraced)), untraced);
}

// A run.json written before the reference's glue was counted has no
// library_counted_ms: all of its library time counted then. A row without a
// share says nothing and is left out.
TEST(RunTrace, AnOlderOrHandEditedDocumentGivesWhatItHas) {
  const auto shares = kaudit::evidence::authored_shares_from_json(json::parse(R"([
    {"shape": "0", "own_ms": 1, "library_ms": 3, "share": 0.25}, {"shape": "1", "own_ms": 2}, 7])"));
  ASSERT_EQ(shares.size(), 1u);
  EXPECT_EQ(shares[0].library_counted_ms, 3);
  EXPECT_FALSE(shares[0].reference_glue_ms_per_call);
  const auto groups = kaudit::evidence::trace_groups_from_json(
      json::parse(R"([{"phase": "timed", "calls": "many", "library_gpu_ms": {"cuBLAS": 2, "x": "y"}}])"));
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].calls, 0);
  EXPECT_EQ(groups[0].library_gpu_ms, (std::map<std::string, double>{{"cuBLAS", 2}}));
  EXPECT_FALSE(groups[0].median_busy_ms);
  EXPECT_EQ(kaudit::evidence::reference_glue_from_json(json()).status, "unavailable");
}

// The whole record, at each point the summary can stop: a journal not read,
// a subscription refused, a whole summary (groups, with and without work
// outside the calls).
TEST(RunTraceRecord, WhatIsWrittenReadsBackTheSame) {
  const std::vector<json> docs = {
      json::parse(R"({"status": "failed", "reason": "no journal from the submission's process"})"),
      json::parse(R"({"status": "failed", "reason": "CUPTI did not accept the tracer's subscription",
                      "subscribed": false, "complete": false, "notes": ["error: CUPTI_ERROR_NOT_INITIALIZED"]})"),
      json::parse(R"({"status": "ok", "subscribed": true, "complete": true, "notes": [],
        "files": ["/o/trace.json", "/o/trace.chrome.json"],
        "reference_glue": {"status": "unavailable", "reason": "the reference's process was not traced"},
        "authored_share": [{"shape": "0", "mode": "bench", "own_ms": 1.5, "library_ms": 0.5, "glue_ms": 0,
                            "reference_glue_ms_per_call": null, "library_counted_ms": 0.5, "share": 0.75}],
        "groups": [{"phase": "timed", "shape": "0", "mode": "bench", "calls": 20, "median_kernels": 1,
                    "median_gpu_ms": 0.2, "median_own_share": 1, "calls_without_gpu_work": 0, "late_kernels": 0,
                    "graph_launches": 0, "timer_reads": 0, "library_gpu_ms": {}}],
        "outside_calls": {"kernels": 812, "gpu_ms": 31.25}})"),
      json::parse(R"({"status": "ok", "subscribed": true, "complete": false, "notes": ["warning: 3 records dropped"],
        "export_error": "disk full", "groups": [], "outside_calls": null})"),
  };
  for (const auto& doc : docs)
    EXPECT_EQ(kaudit::evidence::to_json(kaudit::evidence::trace_record_from_json(doc)), doc) << doc.dump();
  const auto read = kaudit::evidence::trace_record_from_json(docs[2]);
  EXPECT_EQ(read.calls(), 20);
  ASSERT_TRUE(read.outside_calls);
  EXPECT_EQ(read.outside_calls->kernels, 812);
}

TEST(RunTraceRecord, AHandEditedDocumentGivesWhatItHas) {
  const auto read = kaudit::evidence::trace_record_from_json(
      json::parse(R"({"status": 3, "complete": "yes", "notes": ["a", 2], "groups": {"calls": 4}})"));
  EXPECT_EQ(read.status, "unavailable");
  EXPECT_FALSE(read.complete);
  EXPECT_EQ(read.notes, std::vector<std::string>{"a"});
  EXPECT_FALSE(kaudit::evidence::to_json(read).contains("notes")) << "notes are written with subscribed only";
  ASSERT_TRUE(read.groups);
  EXPECT_EQ(read.calls(), 0);
  EXPECT_EQ(kaudit::evidence::trace_record_from_json(json("no record")).status, "unavailable");
}

TEST(RunEnvironment, WhatIsWrittenReadsBackTheSame) {
  const json failure = {{"cause", "the reference's own process ended"}, {"attempts", 2}, {"free_bytes", 81604378624LL}};
  EXPECT_EQ(kaudit::evidence::to_json(*kaudit::evidence::infrastructure_failure_from_json(failure)), failure);
  const json retry = {{"first_cause", "out of device memory"}, {"attempts", 2},
                      {"judged", "the run failed for what looked like the environment twice"}};
  EXPECT_EQ(kaudit::evidence::to_json(*kaudit::evidence::environment_retry_from_json(retry)), retry);
  const json stopped = {{"first_cause", "no space left on device"}, {"attempts", 1}};
  EXPECT_EQ(kaudit::evidence::to_json(*kaudit::evidence::environment_retry_from_json(stopped)), stopped);
}

// What the verdict needs of a hand-edited record is its cause; none without an object.
TEST(RunEnvironment, AHandEditedDocumentGivesWhatItHas) {
  const auto failure = kaudit::evidence::infrastructure_failure_from_json(json{{"attempts", "two"}});
  ASSERT_TRUE(failure);
  EXPECT_EQ(failure->cause, "the environment");
  EXPECT_EQ(failure->attempts, 0);
  EXPECT_FALSE(kaudit::evidence::infrastructure_failure_from_json(json("disk full")));
  EXPECT_FALSE(kaudit::evidence::environment_retry_from_json(json()));
}

TEST(RunAtenOps, WhatIsWrittenReadsBackTheSame) {
  const json record = json::parse(R"({"complete": true, "banned": [
    {"op": "aten.topk.default", "banned_as": "torch.topk", "shape": 0, "phase": "bench", "count": 1}],
    "groups": [
    {"shape": 0, "phase": "bench", "calls": 1, "ops": {"aten.topk.default": 1}, "gaps": [],
     "work": {"aten.topk.default": [4096, 51234]}, "input_elements": 2048},
    {"shape": 0, "phase": "fresh", "calls": 1, "ops": {}, "gaps": ["the call raised under the recorder"]}]})");
  EXPECT_EQ(kaudit::evidence::to_json(kaudit::evidence::aten_ops_record_from_json(record)), record);
}

// A run.json of an older kaudit has groups without `work` and may have no
// record at all; counts and measures of another type are left out.
TEST(RunAtenOps, AnOlderOrHandEditedDocumentGivesWhatItHas) {
  const auto none = kaudit::evidence::aten_ops_record_from_json(json());
  EXPECT_FALSE(none.complete);
  EXPECT_EQ(none.incomplete, "the run document has no record of them");
  const auto r = kaudit::evidence::aten_ops_record_from_json(json::parse(R"({"complete": false, "groups": [
    {"shape": 1, "phase": "first-case", "ops": {"aten.mm.default": 2, "aten.add.Tensor": "two"},
     "work": {"aten.mm.default": [10, -3], "aten.relu.default": [5, 7], "aten.add.Tensor": [9000000000000000000, 1]}},
    3]})"));
  EXPECT_EQ(r.incomplete, "the record says it is incomplete");
  ASSERT_EQ(r.groups.size(), 1u);
  EXPECT_EQ(r.groups[0].ops, (std::map<std::string, long long>{{"aten.mm.default", 2}}));
  ASSERT_TRUE(r.groups[0].work);
  EXPECT_EQ(r.groups[0].work->size(), 2u);
  EXPECT_EQ(r.groups[0].work->at("aten.relu.default").ns, 7);
  // Sums of a record's measures cannot overflow: each is kept at most kMaxOpMeasure.
  EXPECT_EQ(r.groups[0].work->at("aten.add.Tensor").elements, kaudit::evidence::kMaxOpMeasure);
  EXPECT_FALSE(kaudit::evidence::aten_ops_group_from_json(json::parse(R"({"shape": 0, "ops": {}})")).work);
}

// Skipped work is checked by the trace on a GPU, and on the CPU by an op
// record whose every group carries the measures and its inputs' size (an
// older record cannot say it was looked for).
TEST(RunChecks, SkippedWorkIsCheckedOnTheCpuByAMeasuredOpRecord) {
  json modes = json::object();
  for (const char* m : {"bench", "fresh", "rewrite"}) modes[m] = {{"n", 6}, {"samples_passed", true}};
  json group = {{"shape", 0}, {"phase", "fresh"}, {"calls", 1}, {"ops", {{"aten.mm.default", 1}}},
                {"work", {{"aten.mm.default", {32768, 700000}}}}, {"input_elements", 24576}, {"gaps", json::array()}};
  json run = {{"result", "correct"}, {"device", "cpu"},
              {"timing", json::array({{{"shape_index", 0}, {"modes", modes}}})},
              {"aten_ops", {{"complete", true}, {"banned", json::array()}, {"groups", json::array({group})}}}};
  EXPECT_TRUE(kaudit::evidence::runtime_checks_made(run).count("work-skipped-on-repeat"));
  json older = run;
  older["aten_ops"]["groups"][0].erase("input_elements");
  EXPECT_FALSE(kaudit::evidence::runtime_checks_made(older).count("work-skipped-on-repeat"));
  json gpu = run;
  gpu["device"] = "cuda";  // and no trace
  EXPECT_FALSE(kaudit::evidence::runtime_checks_made(gpu).count("work-skipped-on-repeat"));
}

// input_probes as a GPU run wrote it (paged attention on an H100, trimmed):
// distribution cases with their tolerance, one skipped, an off-grid shape
// that passed and one the submission raised on, a size that is not one.
json written_input_probes() {
  return json::parse(R"({
    "judged": true,
    "distributions": [
      {"atol": 0.0103, "case": 5, "distribution": "permuted", "max_abs_error": 0.0078125,
       "max_rel_error": 53.1, "mismatches": 0, "shape_index": 0, "status": "passed"},
      {"atol": 0.5, "case": 6, "distribution": "heavy-tailed", "max_abs_error": 3.0, "max_rel_error": 9.8,
       "mismatches": 12, "non_finite": true, "reason": "12 of 4096 elements off", "shape_index": 3,
       "status": "failed"}],
    "distributions_skipped": [{"distribution": "shifted", "reason": "the shape's inputs exceed 1073741824 bytes",
                               "shape_index": 1}],
    "off_grid": {
      "base_shape": 3, "budget": 6, "not_sizes": ["max_seq_len"],
      "rejected": [{"dim": "page_size", "tried": [32, 17], "reason": "the reference rejected every perturbed size"}],
      "status": "ran",
      "shapes": [
        {"case": 0, "dim": "batch", "from": 128, "to": 136, "step": "aligned", "max_abs_error": 0.0078125,
         "max_rel_error": 210.3, "mismatches": 0, "shape": {"batch": 136, "head_dim": 128}, "shape_index": 4,
         "status": "passed"},
        {"case": 0, "dim": "head_dim", "from": 128, "to": 192, "step": "aligned",
         "reason": "CompilationError: arange's range must be a power of 2",
         "shape": {"batch": 128, "head_dim": 192}, "shape_index": 7, "status": "raised"}]}})");
}

TEST(RunInputProbes, WhatIsWrittenReadsBackTheSame) {
  const json doc = written_input_probes();
  EXPECT_EQ(kaudit::evidence::to_json(kaudit::evidence::input_probes_record_from_json(doc)), doc);
  json not_judged = doc;
  not_judged["judged"] = false;
  not_judged["reason"] = "the graded correctness or a timed call already failed: the result is incorrect";
  not_judged["off_grid"] = {{"budget", 0}, {"status", "off"}, {"shapes", json::array()},
                            {"rejected", json::array()}, {"not_sizes", json::array()}};
  EXPECT_EQ(kaudit::evidence::to_json(kaudit::evidence::input_probes_record_from_json(not_judged)), not_judged);
}

TEST(RunInputProbes, AHandEditedDocumentGivesWhatItHas) {
  json doc = written_input_probes();
  doc["off_grid"]["shapes"][0]["from"] = "128";
  doc["off_grid"]["shapes"].push_back("not a call");
  doc["judged"] = "yes";
  const auto read = kaudit::evidence::input_probes_record_from_json(doc);
  EXPECT_FALSE(read.judged);
  ASSERT_EQ(read.off_grid.shapes.size(), 2u);
  EXPECT_FALSE(read.off_grid.shapes[0].from);
  EXPECT_EQ(read.off_grid.shapes[0].to, 136);
  EXPECT_EQ(read.off_grid.shapes[1].status, "raised");
  EXPECT_TRUE(read.distributions[1].non_finite);
  EXPECT_EQ(read.distributions[1].check.value("mismatches", 0), 12);
  EXPECT_FALSE(kaudit::evidence::input_probes_record_from_json(json::array()).judged);
}

// The off-grid probe made the shape-hardcoded check only where it judged
// shapes near the graded ones and the reference refused no size.
TEST(RunChecks, TheOffGridCheckIsMadeWhereShapesWereJudgedAndNoneRefused) {
  json run = {{"result", "correct"}, {"device", "cuda"}, {"input_probes", written_input_probes()}};
  EXPECT_FALSE(kaudit::evidence::runtime_checks_made(run).count("shape-hardcoded")) << "a size was refused";
  run["input_probes"]["off_grid"]["rejected"] = json::array();
  EXPECT_TRUE(kaudit::evidence::runtime_checks_made(run).count("shape-hardcoded"));
  run["input_probes"]["judged"] = false;
  EXPECT_FALSE(kaudit::evidence::runtime_checks_made(run).count("shape-hardcoded"));
}

// settings as a GPU run wrote them (--shapes smallest on a problem of three).
TEST(RunSettings, WhatIsWrittenReadsBackTheSame) {
  const json doc = json::parse(R"({
    "seeds": 3, "stress_scales": [0.01, 100.0], "warmup": 3, "trials": 20, "samples": 3,
    "tolerance": {"atol": 0.01, "rtol": 0.01, "by_dtype": {"float32": {"atol": 0.0001, "rtol": 0.0001}}},
    "setup_timeout_s": 600.0, "phase_timeout_s": 300.0, "call_timeout_s": 30.0,
    "fresh_over_bench_threshold": 1.5, "stress_mismatch_fraction": 0.001, "near_miss_fraction": 0.0001,
    "near_miss_elements": 4, "off_grid_shapes": 6,
    "shapes": {"selection": "smallest", "graded": 3, "run": [2]},
    "distributions": ["permuted", "input-ends"], "trace": true, "trace_reference": true})");
  const auto read = kaudit::evidence::run_settings_from_json(doc);
  EXPECT_EQ(kaudit::evidence::to_json(read), doc);
  EXPECT_EQ(read.shapes.run, std::vector<int>{2});
  json before_the_reference = doc;
  before_the_reference["shapes"] = {{"selection", "all"}};
  EXPECT_EQ(kaudit::evidence::to_json(kaudit::evidence::run_settings_from_json(before_the_reference)),
            before_the_reference);
}

TEST(RunSettings, AHandEditedDocumentGivesWhatItHas) {
  json doc = {{"trials", "twenty"}, {"fresh_over_bench_threshold", 2.0}, {"shapes", {{"run", {1, "two"}}}},
              {"distributions", {"permuted", 7}}, {"trace", "yes"}};
  const auto read = kaudit::evidence::run_settings_from_json(doc);
  EXPECT_EQ(read.trials, 0);
  EXPECT_EQ(read.fresh_over_bench_threshold, 2.0);
  EXPECT_EQ(read.shapes.selection, "all");
  EXPECT_EQ(read.shapes.run, std::vector<int>{1});
  EXPECT_EQ(read.distributions, std::vector<std::string>{"permuted"});
  EXPECT_FALSE(read.trace);
  EXPECT_EQ(kaudit::evidence::run_settings_from_json(nullptr).seeds, 0);
}
