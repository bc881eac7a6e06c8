// The problem's tolerance in every form the upstream benchmarks write it;
// anything else is an error, never a silent default.
#include "runner/plan/tolerance.h"

#include <gtest/gtest.h>

#include <filesystem>

using namespace kaudit;
using json = nlohmann::json;

namespace {

run::ToleranceTable table_for(const json& tolerance) {
  rules::Problem p;
  p.dir = "/problems/p";
  p.yaml = json::object();
  if (!tolerance.is_null()) p.yaml["tolerance"] = tolerance;
  return run::tolerance_of(p);
}

void expect_tol(const run::ToleranceTable& t, const char* dtype, double atol, double rtol) {
  const run::Tolerance got = t.for_dtype(dtype);
  EXPECT_DOUBLE_EQ(got.atol, atol) << dtype;
  EXPECT_DOUBLE_EQ(got.rtol, rtol) << dtype;
}

}  // namespace

TEST(Tolerance, AbsentMeansKernelBenchHardDefaultsPerDtype) {
  const auto t = table_for(nullptr);
  expect_tol(t, "float32", 1e-4, 1e-4);
  expect_tol(t, "bfloat16", 1e-2, 1e-2);
  expect_tol(t, "float16", 1e-2, 1e-2);
  expect_tol(t, "float8_e4m3fn", 1e-1, 1e-1);
  expect_tol(t, "int64", 0, 0);
  expect_tol(t, "bool", 0, 0);
}

TEST(Tolerance, OneNumberOrAtolRtolAppliesToEveryDtype) {
  expect_tol(table_for(0.05), "float32", 0.05, 0.05);
  expect_tol(table_for("5e-2"), "int32", 0.05, 0.05);  // PyYAML's un-dotted scientific notation is a string
  const auto t = table_for({{"atol", 0.02}, {"rtol", 0.01}});
  expect_tol(t, "bfloat16", 0.02, 0.01);
  expect_tol(t, "float32", 0.02, 0.01);
  expect_tol(table_for({{"atol", 0.0005}}), "float32", 0.0005, 1e-2);
}

TEST(Tolerance, PerDtypeMapsAsUpstreamWritesThem) {
  const auto topk = table_for({{"float32", 1.0e-4}});
  expect_tol(topk, "float32", 1e-4, 1e-4);
  const auto kda = table_for({{"torch.bfloat16", 0.05}});
  expect_tol(kda, "bfloat16", 0.05, 0.05);
  expect_tol(kda, "float32", 1e-4, 1e-4);  // a dtype the map leaves out keeps its default
  const auto fp8 = table_for({{"bfloat16", 0.2}, {"fp8_e4m3fn", 0.2}});
  expect_tol(fp8, "bfloat16", 0.2, 0.2);
  const auto nested = table_for({{"bfloat16", {{"atol", 0.1}, {"rtol", 0.05}}}});
  expect_tol(nested, "bfloat16", 0.1, 0.05);
  EXPECT_EQ(topk.to_json()["by_dtype"]["float32"]["atol"], 1e-4);
  EXPECT_EQ(table_for(0.05).to_json(), (json{{"atol", 0.05}, {"rtol", 0.05}}));
}

TEST(Tolerance, UnknownFormsAreErrors) {
  EXPECT_THROW(table_for("loose"), std::runtime_error);
  EXPECT_THROW(table_for(json::array({0.1})), std::runtime_error);
  EXPECT_THROW(table_for(json::object()), std::runtime_error);
  EXPECT_THROW(table_for({{"float32", "tight"}}), std::runtime_error);
  EXPECT_THROW(table_for({{"float32", -1.0}}), std::runtime_error);
  EXPECT_THROW(table_for({{"bfloat16", {{"atol", 0.1}, {"rtl", 0.1}}}}), std::runtime_error);
  try {
    table_for({{"float32", "tight"}});
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("problem.yaml: tolerance.float32"), std::string::npos) << e.what();
  }
}

TEST(Tolerance, KernelBenchSingleFileProblemsUseOneHundredth) {
  rules::Problem p;
  p.format = rules::ProblemFormat::kernelbench;
  p.yaml = json::object();
  expect_tol(run::tolerance_of(p), "float32", 1e-2, 1e-2);
}

// Every problem.yaml of KernelBench-Hard's H100 deck reads, with what upstream means.
TEST(Tolerance, UpstreamProblemFilesRead) {
  const std::filesystem::path deck = std::string(KAUDIT_SOURCE_DIR) + "/../shared/upstream/kernelbench-hard/problems-h100";
  if (!std::filesystem::is_directory(deck)) GTEST_SKIP() << "no " << deck << " (../shared is absent)";
  int read = 0;
  for (const auto& d : std::filesystem::directory_iterator(deck)) {
    if (!std::filesystem::exists(d.path() / "problem.yaml")) continue;
    const rules::Problem p = rules::load_problem(d.path());
    EXPECT_NO_THROW(run::tolerance_of(p)) << d.path();
    ++read;
    if (d.path().filename() == "05_topk_bitonic") expect_tol(run::tolerance_of(p), "float32", 1e-4, 1e-4);
    if (d.path().filename() == "02_kda_cutlass") expect_tol(run::tolerance_of(p), "bfloat16", 0.05, 0.05);
  }
  EXPECT_GE(read, 6);
}
