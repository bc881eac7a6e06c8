#include "runner/process/hardware.h"
#include "runner/plan/throughput.h"

#include <gtest/gtest.h>

using namespace kaudit::run;

TEST(Hardware, H200IsBuiltInAndFoundByDeviceName) {
  const auto h = find_hardware("NVIDIA H200");
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->name, "h200");
  EXPECT_GT(h->l2_bytes, 40e6);
  const auto bf16 = h->compute_peak("bf16", "measured");
  ASSERT_TRUE(bf16);
  EXPECT_EQ(bf16->basis, "measured");
  const auto ds = h->compute_peak("bf16", "datasheet");
  ASSERT_TRUE(ds);
  EXPECT_GT(ds->value, bf16->value);
  // Aliases: the problems' precision names map onto the file's rates.
  EXPECT_TRUE(h->compute_peak("fp8_e4m3", "datasheet"));
  EXPECT_TRUE(h->compute_peak("int4_bf16", "datasheet"));
  EXPECT_FALSE(find_hardware("Some Other GPU"));
}

TEST(Hardware, MissingMeasuredPeakFallsBackToDatasheetAndSaysSo) {
  const auto h = find_hardware("h200");
  ASSERT_TRUE(h);
  const auto p = h->compute_peak("fp64", "measured");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->basis, "datasheet");
}

TEST(Throughput, PercentOfPeakFromFormulas) {
  const auto h = find_hardware("h200");
  const nlohmann::json yaml = {{"precision", "bf16"},
                               {"regime", "compute"},
                               {"flops_formula", "2 * M * N * K"},
                               {"bytes_formula", "2 * (M * K + N * K + M * N)"}};
  const auto basis = throughput_basis(yaml, {{"M", 1024}, {"N", 1024}, {"K", 1024}}, h, "datasheet");
  EXPECT_DOUBLE_EQ(basis["flops"].get<double>(), 2.0 * 1024 * 1024 * 1024);
  const auto t = throughput(basis, 1.0);  // 1 ms
  EXPECT_NEAR(t["tflops"].get<double>(), 2.147483648, 1e-9);
  EXPECT_NEAR(t["percent_of_peak"].get<double>(), 100.0 * 2.147483648e12 / 9.895e14, 1e-9);
  EXPECT_TRUE(t["percent_of_memory_peak"].is_number());
}

TEST(Throughput, BadFormulaIsReportedNotThrown) {
  const nlohmann::json yaml = {{"flops_formula", "2 * M * Q"}, {"regime", "compute"}};
  const auto basis = throughput_basis(yaml, {{"M", 2}}, std::nullopt, "measured");
  EXPECT_TRUE(basis["flops"].is_null());
  ASSERT_TRUE(basis.contains("errors"));
  EXPECT_TRUE(throughput(basis, 1.0)["percent_of_peak"].is_null());
}
