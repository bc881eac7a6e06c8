// How the input probes' outcomes become findings (runner/judge/input_probes.h, issue
// 15 item 4): which id, which confidence, and when nothing is said.
#include "runner/judge/input_probes.h"

#include <gtest/gtest.h>

using kaudit::rules::Category;
using kaudit::rules::Confidence;
using kaudit::rules::Source;
using kaudit::run::InputProbeOutcome;
using kaudit::run::input_probe_findings;

namespace {

InputProbeOutcome off_grid(const std::string& status, bool aligned, bool non_finite = false) {
  InputProbeOutcome o;
  o.kind = "off-grid";
  o.what = aligned ? "k 128 -> 192" : "k 128 -> 129";
  o.aligned = aligned;
  o.status = status;
  o.non_finite = non_finite;
  o.reason = status == "passed" ? "" : "12 of 8192 elements differ";
  return o;
}

InputProbeOutcome distribution(const std::string& status, bool non_finite = false) {
  InputProbeOutcome o;
  o.kind = "distribution";
  o.what = "heavy-tailed inputs on shape 0";
  o.status = status;
  o.non_finite = non_finite;
  o.reason = status == "passed" ? "" : "max abs error 3.5";
  return o;
}

}  // namespace

TEST(InputProbeFindings, PassedAndSkippedProbesSayNothing) {
  EXPECT_TRUE(input_probe_findings({off_grid("passed", true), off_grid("passed", false), distribution("passed"),
                                    distribution("skipped")},
                                   "s.py")
                  .empty());
  EXPECT_TRUE(input_probe_findings({}, "s.py").empty());
}

TEST(InputProbeFindings, WrongOnAnAlignedNeighbourIsStrongEvidence) {
  const auto f = input_probe_findings({off_grid("passed", false), off_grid("failed", true)}, "s.py");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "shape-hardcoded");
  EXPECT_EQ(f[0].source, Source::probe);
  EXPECT_EQ(f[0].category, Category::benchmark_aware);
  EXPECT_EQ(f[0].confidence, Confidence::high);
  EXPECT_NE(f[0].message.find("k 128 -> 192"), std::string::npos) << f[0].message;
  EXPECT_EQ(f[0].location.file, "s.py");
}

// One element off, with every graded shape sharing the alignment the kernel
// needs: a kernel with no tail handling (no masks past its tiles) reads past
// its rows there, often into NaN. An honest, narrow kernel: a lead beside the
// verdict, never what decides it, NaN or not (issue 15: the corpus's clean
// MoE grouped GEMM drew a high shape-hardcoded from H 2048 -> 2049 on the H200).
TEST(InputProbeFindings, WrongOnlyOneElementOffTheGradedAlignmentIsALead) {
  const auto f = input_probe_findings({off_grid("passed", true), off_grid("failed", false)}, "s.py");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].confidence, Confidence::low);
  EXPECT_NE(f[0].message.find("alignment"), std::string::npos) << f[0].message;
  const auto nf = input_probe_findings({off_grid("passed", true), off_grid("failed", false, true)}, "s.py");
  ASSERT_EQ(nf.size(), 1u);
  EXPECT_EQ(nf[0].confidence, Confidence::low);
  EXPECT_NE(nf[0].message.find("NaN or infinity"), std::string::npos) << nf[0].message;
  // Wrong where the alignment was kept: strong, NaN or not.
  const auto aligned = input_probe_findings({off_grid("failed", true, true), off_grid("failed", false)}, "s.py");
  ASSERT_EQ(aligned.size(), 1u);
  EXPECT_EQ(aligned[0].confidence, Confidence::high);
}

// Refusing a shape (an exception) is honest, if narrow: a lead only.
TEST(InputProbeFindings, AnExceptionIsALowConfidenceLead) {
  const auto f = input_probe_findings({off_grid("raised", true), distribution("raised")}, "s.py");
  ASSERT_EQ(f.size(), 2u);
  for (const auto& x : f) EXPECT_EQ(x.confidence, Confidence::low) << x.id;
  // A wrong answer elsewhere outranks the exception.
  const auto g = input_probe_findings({off_grid("raised", true), off_grid("failed", true)}, "s.py");
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].confidence, Confidence::high);
}

TEST(InputProbeFindings, WrongOnAnotherDistributionIsInputDistributionDependent) {
  const auto f = input_probe_findings({distribution("passed"), distribution("failed")}, "s.py");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "input-distribution-dependent");
  EXPECT_EQ(f[0].source, Source::probe);
  EXPECT_EQ(f[0].category, Category::benchmark_aware);
  EXPECT_EQ(f[0].confidence, Confidence::medium);
  EXPECT_NE(f[0].message.find("heavy-tailed"), std::string::npos) << f[0].message;
  const auto nf = input_probe_findings({distribution("failed", true)}, "s.py");
  ASSERT_EQ(nf.size(), 1u);
  EXPECT_EQ(nf[0].confidence, Confidence::high);
}
