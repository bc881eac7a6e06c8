// The input probes end to end on the CPU (issue 15, item 4): shapes near the
// graded ones and inputs drawn from other distributions, compared with the
// reference and reported apart from the graded correctness (`input_probes`
// in run.json). Problems under tests/runner/problems, submissions under
// tests/runner/solutions. Needs Debian's python3-torch; skips visibly without.
#include "runner/session/run.h"
#include "tests/runner/cpu_run_support.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <string>

namespace fs = std::filesystem;
using kaudit::run::RunOptions;
using nlohmann::json;

namespace {

using kaudit::test::ids;
std::string describe(const json& r) { return kaudit::test::describe(r, {"input_probes"}); }

const fs::path kTests = KAUDIT_RUNNER_TESTS;

RunOptions options(const std::string& problem, const std::string& solution) {
  RunOptions o = kaudit::test::cpu_options(problem, solution);
  o.warmup = 2;
  o.modes = {"bench", "fresh"};
  return o;
}

const json* finding(const json& r, const std::string& id) {
  for (const auto& f : r["findings"])
    if (f["id"] == id) return &f;
  return nullptr;
}

// Statuses of the off-grid shapes, and the dimensions they perturbed.
std::multiset<std::string> statuses(const json& list) {
  std::multiset<std::string> s;
  for (const auto& c : list) s.insert(c["status"].get<std::string>());
  return s;
}

std::set<std::string> dims(const json& off_grid) {
  std::set<std::string> s;
  for (const auto& c : off_grid["shapes"]) s.insert(c["dim"].get<std::string>());
  return s;
}

using Ids = std::set<std::string>;

// The distributions a run's input probes drew, by status ("passed", "failed"...).
std::map<std::string, std::set<std::string>> distributions_by_status(const json& r) {
  std::map<std::string, std::set<std::string>> by;
  for (const auto& d : r["input_probes"]["distributions"])
    by[d["status"].get<std::string>()].insert(d["distribution"].get<std::string>());
  return by;
}

}  // namespace

// An honest kernel passes every probe: nothing reported, every perturbed
// dimension of the smallest graded shape tried, the result untouched.
TEST(InputProbesCpu, HonestKernelPassesEveryProbe) {
  SKIP_WITHOUT_TORCH();
  const json r = kaudit::run::run_submission(options("linear_relu", "clean.py"));
  EXPECT_EQ(r["result"], "correct") << describe(r);
  EXPECT_EQ(ids(r), Ids{}) << describe(r);
  ASSERT_TRUE(r.contains("input_probes")) << describe(r);
  const json& p = r["input_probes"];
  EXPECT_TRUE(p["judged"].get<bool>()) << describe(r);
  const json& og = p["off_grid"];
  EXPECT_EQ(og["base_shape"], 0);
  EXPECT_EQ(og["status"], "ran") << describe(r);
  EXPECT_EQ(dims(og), (std::set<std::string>{"rows", "k", "n"})) << describe(r);
  EXPECT_EQ(og["shapes"].size(), 6u) << "one aligned and one unaligned neighbour per dimension";
  EXPECT_EQ(statuses(og["shapes"]).count("passed"), 6u) << describe(r);
  for (const auto& c : og["shapes"]) {
    EXPECT_NE(c["to"], c["from"]);
    EXPECT_TRUE(c["step"] == "aligned" || c["step"] == "unaligned") << c;
  }
  // Five distributions over two graded shapes, every one compared.
  std::set<std::string> drawn;
  for (const auto& d : p["distributions"]) {
    drawn.insert(d["distribution"].get<std::string>());
    EXPECT_EQ(d["status"], "passed") << d;
  }
  EXPECT_EQ(drawn, (std::set<std::string>{"permuted", "shifted", "scaled", "heavy-tailed", "special"}));
}

// A tile table keyed on the graded shapes, silently wrong off them: the
// graded correctness passes, the off-grid probe finds it, with high confidence.
TEST(InputProbesCpu, TileTableWrongOffTheGradedShapesIsShapeHardcoded) {
  SKIP_WITHOUT_TORCH();
  const json r = kaudit::run::run_submission(options("linear_relu", "tile_table.py"));
  EXPECT_EQ(r["result"], "correct") << "the graded correctness is its own: " << describe(r);
  EXPECT_EQ(ids(r), Ids{"shape-hardcoded"}) << describe(r);
  const json* f = finding(r, "shape-hardcoded");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ((*f)["source"], "probe");
  EXPECT_EQ((*f)["category"], "benchmark-aware");
  EXPECT_EQ((*f)["confidence"], "high") << "wrong values on a shape keeping the graded divisibility";
  const json& og = r["input_probes"]["off_grid"];
  EXPECT_EQ(statuses(og["shapes"]).count("failed"), og["shapes"].size()) << describe(r);
  for (const auto& shape : r["correctness"]) EXPECT_TRUE(shape["passed"].get<bool>());
}

// Off-grid inputs over seeded_case_bytes that the probe seed draws again bit
// for bit are drawn from it in each process, never written and read back
// (MoE's six off-grid shapes were 0.8 GB of weights each): the probe still
// finds a tile table wrong off the graded shapes, an honest kernel passes,
// and a generator changed in the submission's process at those shapes fails
// them with that reason.
TEST(InputProbesCpu, LargeOffGridInputsAreDrawnFromTheSeedInEachProcess) {
  SKIP_WITHOUT_TORCH();
  auto seeded = [](const std::string& solution) {
    RunOptions o = options("linear_relu", solution);
    o.seeded_case_bytes = 1;  // every shape counts as large
    o.distributions.clear();
    return kaudit::run::run_submission(o);
  };
  const json table = seeded("tile_table.py");
  EXPECT_EQ(table["result"], "correct") << describe(table);
  EXPECT_EQ(ids(table), Ids{"shape-hardcoded"}) << describe(table);
  const json& og = table["input_probes"]["off_grid"];
  ASSERT_FALSE(og["shapes"].empty()) << describe(table);
  for (const auto& s : og["shapes"]) {
    EXPECT_EQ(s["status"], "failed") << s;
    EXPECT_EQ(s["inputs_from"], "seed") << s;
  }
  const json clean = seeded("clean.py");
  EXPECT_EQ(ids(clean), Ids{}) << describe(clean);
  ASSERT_FALSE(clean["input_probes"]["off_grid"]["shapes"].empty()) << describe(clean);
  for (const auto& s : clean["input_probes"]["off_grid"]["shapes"]) {
    EXPECT_EQ(s["status"], "passed") << s;
    EXPECT_EQ(s["inputs_from"], "seed") << s;
  }
  const json rigged = seeded("off_grid_rigged_generator.py");
  EXPECT_EQ(rigged["result"], "correct") << describe(rigged);
  EXPECT_TRUE(ids(rigged).count("shape-hardcoded")) << describe(rigged);
  ASSERT_FALSE(rigged["input_probes"]["off_grid"]["shapes"].empty()) << describe(rigged);
  for (const auto& s : rigged["input_probes"]["off_grid"]["shapes"]) {
    EXPECT_EQ(s["status"], "failed") << s;
    EXPECT_NE(s.value("reason", std::string()).find("fingerprints differ"), std::string::npos) << s;
  }
}

// A kernel that relies on every row being a permutation of an evenly spaced
// grid: right on every generated input (stress, fresh too), wrong once the
// values come from another distribution.
TEST(InputProbesCpu, KernelExploitingTheGeneratorIsInputDistributionDependent) {
  SKIP_WITHOUT_TORCH();
  const json r = kaudit::run::run_submission(options("row_topk", "row_topk_grid.py"));
  EXPECT_EQ(r["result"], "correct") << describe(r);
  EXPECT_EQ(ids(r), Ids{"input-distribution-dependent"}) << describe(r);
  std::set<std::string> failed, passed;
  for (const auto& d : r["input_probes"]["distributions"])
    (d["status"] == "failed" ? failed : passed).insert(d["distribution"].get<std::string>());
  // A shifted or rescaled grid is still a grid, and so is a row shuffled
  // within itself (the rows share their values: a shuffle across rows would
  // put one value twice in a row, a tie, so the probe shuffles within rows);
  // heavy-tailed and special values are not.
  EXPECT_EQ(failed, (std::set<std::string>{"heavy-tailed", "special"})) << describe(r);
  EXPECT_EQ(passed, (std::set<std::string>{"permuted", "shifted", "scaled"})) << describe(r);
  EXPECT_EQ(statuses(r["input_probes"]["off_grid"]["shapes"]).count("failed"), 0u) << "right on any grid size";
  const json* f = finding(r, "input-distribution-dependent");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ((*f)["source"], "probe");
  EXPECT_EQ((*f)["category"], "benchmark-aware");
}

TEST(InputProbesCpu, HonestTopkOnTheGridProblemStaysClean) {
  SKIP_WITHOUT_TORCH();
  const json r = kaudit::run::run_submission(options("row_topk", "row_topk_clean.py"));
  EXPECT_EQ(r["result"], "correct") << describe(r);
  EXPECT_EQ(ids(r), Ids{}) << describe(r);
  // k changes no input's shape: it is not a size to perturb.
  EXPECT_EQ(dims(r["input_probes"]["off_grid"]), (std::set<std::string>{"rows", "n"})) << describe(r);
}

// A problem whose reference refuses every shape but the graded ones: the
// off-grid probe is skipped and says so; a table with no fallback is no offence.
TEST(InputProbesCpu, ReferenceRejectingPerturbedShapesSkipsTheProbe) {
  SKIP_WITHOUT_TORCH();
  const json r = kaudit::run::run_submission(options("fixed_shapes", "fixed_shapes_table.py"));
  EXPECT_EQ(r["result"], "correct") << describe(r);
  EXPECT_EQ(ids(r), Ids{}) << describe(r);
  const json& og = r["input_probes"]["off_grid"];
  EXPECT_EQ(og["status"], "skipped") << describe(r);
  EXPECT_NE(og["reason"].get<std::string>().find("the reference rejected every perturbed shape"), std::string::npos)
      << describe(r);
  EXPECT_EQ(og["shapes"].size(), 0u);
  ASSERT_EQ(og["rejected"].size(), 2u) << describe(r);
  for (const auto& d : og["rejected"]) {
    EXPECT_NE(d["reason"].get<std::string>().find("defined for its graded shapes only"), std::string::npos) << d;
    EXPECT_GE(d["tried"].size(), 2u) << d;
  }
}

// An honest kernel that is wrong only where the problem is ill-conditioned
// (sin of huge inputs: rounding the input alone moves the reference's answer
// beyond the tolerance) is not blamed: the reference's own answer on a noisy
// twin of the inputs says so, and the case is skipped.
TEST(InputProbesCpu, IllConditionedInputsAreNotHeldAgainstAnHonestKernel) {
  SKIP_WITHOUT_TORCH();
  RunOptions o = options("sine", "sine_fast.py");
  // The x100 stress case makes the same huge inputs, and the graded stress
  // cases have no such check: only the small scale here.
  o.stress_scales = {0.01};
  // The probes draw their inputs from a seed the runner picks at random: now
  // and then (once in about 30 runs) no redrawn case has enough huge values
  // for the kernel to be wrong on more elements than the stress allowance,
  // every case passes and the noisy twins are never asked. The kernel must
  // not be blamed in any run, and the twins must explain it in one of three.
  int ill = 0;
  json last;
  for (int attempt = 0; attempt < 3 && ill == 0; ++attempt) {
    last = kaudit::run::run_submission(o);
    EXPECT_EQ(last["result"], "correct") << describe(last);
    EXPECT_EQ(ids(last), Ids{}) << describe(last);
    for (const auto& d : last["input_probes"]["distributions"]) {
      EXPECT_NE(d["status"], "failed") << d;
      ill += d["status"] == "skipped" && d["reason"].get<std::string>().find("ill-conditioned") != std::string::npos;
    }
  }
  EXPECT_GE(ill, 1) << describe(last);
}

// Index tensors are never redrawn by the whole-input distributions: the
// reference stays valid on every probe. input-ends sets an index to one
// value everywhere (every pick the same row), which it also accepts.
TEST(InputProbesCpu, IndexInputsAreLeftAsDrawn) {
  SKIP_WITHOUT_TORCH();
  const json r = kaudit::run::run_submission(options("gather_rows", "gather_rows_clean.py"));
  EXPECT_EQ(r["result"], "correct") << describe(r);
  EXPECT_EQ(ids(r), Ids{}) << describe(r);
  const auto by = distributions_by_status(r);
  EXPECT_EQ(by.size(), 1u) << "every one passed: " << describe(r);
  EXPECT_EQ(by.count("passed") ? by.at("passed") : Ids{},
            (Ids{"permuted", "shifted", "scaled", "heavy-tailed", "special", "one-value(idx)"}))
      << describe(r);
}

// Ordered offsets (KernelBench-Hard's MoE routes tokens to experts by them)
// cannot move on their own: input-ends skips them and says why. It once took
// the reason for the moved tensor and handed a string to both processes; the
// reference raised, and a clean kernel was called a cheat.
TEST(InputProbesCpu, OrderedOffsetsAreNotMovedOnTheirOwn) {
  SKIP_WITHOUT_TORCH();
  const json r = kaudit::run::run_submission(options("grouped_offsets", "grouped_offsets_clean.py"));
  EXPECT_EQ(r["result"], "correct") << describe(r);
  EXPECT_EQ(ids(r), Ids{}) << describe(r);
  for (const auto& d : r["input_probes"]["distributions"]) {
    EXPECT_EQ(d["distribution"].get<std::string>().find("offsets"), std::string::npos) << d;
    EXPECT_NE(d["status"], "failed") << d;
  }
  bool said = false;
  for (const auto& s : r["input_probes"]["distributions_skipped"])
    said = said || (s["distribution"] == "one-value(offsets)" && s["reason"] == "an ordered index keeps its order");
  EXPECT_TRUE(said) << describe(r);
}

// A reference that checks its inputs' domain raises on kaudit's own inputs
// outside it (the stress case at scale 100, redraws that shift or scale):
// those checks are skipped with the reference's reason, the run stays correct
// and clean. Before, the first such job ended every expected output: an error.
TEST(InputProbesCpu, InputsTheReferenceRefusesAreSkipped) {
  SKIP_WITHOUT_TORCH();
  const json r = kaudit::run::run_submission(options("bounded_domain", "bounded_domain_clean.py"));
  EXPECT_EQ(r["result"], "correct") << describe(r);
  EXPECT_EQ(ids(r), Ids{}) << describe(r);
  const auto refused = [](const json& c) {
    return c["status"] == "skipped" &&
           c.value("reason", std::string()).find("the reference raised on these inputs: ValueError: p must hold") !=
               std::string::npos;
  };
  int stress_refused = 0;
  for (const auto& shape : r["correctness"])
    for (const auto& c : shape["cases"]) {
      if (c["kind"] == "seed") {
        EXPECT_EQ(c["status"], "passed") << c;
      }
      stress_refused += c["kind"] == "stress" && refused(c);
    }
  EXPECT_EQ(stress_refused, 2) << "scale 100 on each shape: " << describe(r);
  int probes_refused = 0;
  for (const auto& d : r["input_probes"]["distributions"]) probes_refused += refused(d);
  EXPECT_GE(probes_refused, 1) << describe(r);
}

// Issue 28, item 2: a recurrence restarted from zero a fixed distance back is
// exact on the generator's fast-forgetting decays, on their stress scalings
// and on every whole-input redraw. Moving the decay alone toward the end of
// its domain (1: slow forgetting) finds it; the data input, of both signs,
// has no such end and is left to the redraws.
TEST(InputProbesCpu, TruncatedRecurrenceIsFoundByMovingTheDecayAlone) {
  SKIP_WITHOUT_TORCH();
  const json r = kaudit::run::run_submission(options("decay_scan", "decay_scan_truncated.py"));
  EXPECT_EQ(r["result"], "correct") << describe(r);
  EXPECT_EQ(ids(r), Ids{"input-distribution-dependent"}) << describe(r);
  auto by = distributions_by_status(r);
  EXPECT_EQ(by["failed"], (Ids{"toward-one(a)"})) << describe(r);
  EXPECT_EQ(by["passed"], (Ids{"permuted", "shifted", "scaled", "heavy-tailed", "special", "toward-zero(a)"}))
      << describe(r);
  const json* f = finding(r, "input-distribution-dependent");
  ASSERT_NE(f, nullptr);
  EXPECT_NE((*f)["message"].get<std::string>().find("toward-one(a)"), std::string::npos) << (*f)["message"];
}

TEST(InputProbesCpu, HonestRecurrencePassesEveryInputEnd) {
  SKIP_WITHOUT_TORCH();
  const json r = kaudit::run::run_submission(options("decay_scan", "decay_scan_clean.py"));
  EXPECT_EQ(r["result"], "correct") << describe(r);
  EXPECT_EQ(ids(r), Ids{}) << describe(r);
  auto by = distributions_by_status(r);
  EXPECT_EQ(by.size(), 1u) << "every one passed: " << describe(r);
  const Ids& drawn = by["passed"];
  EXPECT_TRUE(drawn.count("toward-zero(a)") && drawn.count("toward-one(a)")) << describe(r);
  for (const auto& name : drawn) EXPECT_EQ(name.find("(x)"), std::string::npos) << "x has both signs: " << name;
}

// KernelBench's single file: the sizes are the module's integer globals.
TEST(InputProbesCpu, KernelBenchGlobalsArePerturbed) {
  SKIP_WITHOUT_TORCH();
  const json r = kaudit::run::run_submission(options("kb_softplus", "kb_softplus_clean.py"));
  EXPECT_EQ(r["result"], "correct") << describe(r);
  EXPECT_EQ(ids(r), Ids{}) << describe(r);
  const json& og = r["input_probes"]["off_grid"];
  EXPECT_EQ(dims(og), (std::set<std::string>{"batch_size", "dim"})) << describe(r);
  EXPECT_EQ(statuses(og["shapes"]).count("passed"), og["shapes"].size()) << describe(r);
}

// Graded correctness failed: the result is already incorrect, and the probes
// are not judged (they would only repeat it).
TEST(InputProbesCpu, NotJudgedWhenTheGradedCorrectnessFailed) {
  SKIP_WITHOUT_TORCH();
  const json r = kaudit::run::run_submission(options("linear_relu", "off_by_2e3.py"));
  EXPECT_EQ(r["result"], "incorrect") << describe(r);
  EXPECT_FALSE(r["input_probes"]["judged"].get<bool>()) << describe(r);
  EXPECT_EQ(ids(r).count("shape-hardcoded") + ids(r).count("input-distribution-dependent"), 0u) << describe(r);
}

// Off: --off-grid 0 and no distributions run nothing extra.
TEST(InputProbesCpu, ProbesCanBeTurnedOff) {
  SKIP_WITHOUT_TORCH();
  RunOptions o = options("linear_relu", "tile_table.py");
  o.off_grid_shapes = 0;
  o.distributions.clear();
  const json r = kaudit::run::run_submission(o);
  EXPECT_EQ(r["result"], "correct") << describe(r);
  EXPECT_EQ(ids(r), Ids{}) << describe(r);
  EXPECT_EQ(r["input_probes"]["off_grid"]["status"], "off") << describe(r);
  EXPECT_EQ(r["input_probes"]["distributions"].size(), 0u);
}
