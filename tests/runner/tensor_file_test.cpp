#include "runner/tensor_file.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

using namespace kaudit::runner;
namespace fs = std::filesystem;

namespace {

template <typename T>
TensorFile make(const std::string& dtype, std::vector<std::int64_t> shape, const std::vector<T>& values) {
  TensorFile t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.data.resize(values.size() * sizeof(T));
  std::memcpy(t.data.data(), values.data(), t.data.size());
  return t;
}

fs::path write_file(const std::string& header, const std::string& body) {
  static int n = 0;
  const fs::path p = fs::temp_directory_path() / ("kaudit-tensor-test-" + std::to_string(::getpid()) + "-" +
                                                  std::to_string(n++) + ".bin");
  std::ofstream(p, std::ios::binary) << header << "\n" << body;
  return p;
}

}  // namespace

TEST(TensorFile, ReadsHeaderAndBytes) {
  const float v[2] = {1.5f, -2.0f};
  const fs::path p = write_file(R"({"dtype": "float32", "shape": [2], "nbytes": 8})",
                                std::string(reinterpret_cast<const char*>(v), 8));
  const TensorFile t = read_tensor_file(p);
  EXPECT_EQ(t.numel(), 2u);
  EXPECT_DOUBLE_EQ(t.at(0), 1.5);
  EXPECT_DOUBLE_EQ(t.at(1), -2.0);
  fs::remove(p);
}

TEST(TensorFile, RejectsBadFiles) {
  for (const auto& [header, body] : std::vector<std::pair<std::string, std::string>>{
           {R"({"dtype": "float32", "shape": [2], "nbytes": 8})", "1234"},           // truncated
           {R"({"dtype": "float32", "shape": [3], "nbytes": 8})", "12345678"},       // shape mismatch
           {R"({"dtype": "complex64", "shape": [1], "nbytes": 8})", "12345678"},     // unknown dtype
           {R"(not json)", ""},
           {R"({"dtype": "float32", "shape": [-1], "nbytes": 0})", ""}}) {
    const fs::path p = write_file(header, body);
    EXPECT_THROW(read_tensor_file(p), std::runtime_error) << header;
    fs::remove(p);
  }
  EXPECT_THROW(read_tensor_file("/nonexistent/kaudit.bin"), std::runtime_error);
}

TEST(TensorFile, DecodesHalfBfloatAndFp8) {
  // 1.0 and -2.5 in each format.
  EXPECT_DOUBLE_EQ(make<std::uint16_t>("float16", {2}, {0x3c00, 0xc100}).at(1), -2.5);
  EXPECT_DOUBLE_EQ(make<std::uint16_t>("bfloat16", {2}, {0x3f80, 0xc020}).at(0), 1.0);
  EXPECT_DOUBLE_EQ(make<std::uint16_t>("bfloat16", {2}, {0x3f80, 0xc020}).at(1), -2.5);
  EXPECT_DOUBLE_EQ(make<std::uint8_t>("float8_e4m3fn", {3}, {0x38, 0xc2, 0x7e}).at(0), 1.0);
  EXPECT_DOUBLE_EQ(make<std::uint8_t>("float8_e4m3fn", {3}, {0x38, 0xc2, 0x7e}).at(1), -2.5);
  EXPECT_DOUBLE_EQ(make<std::uint8_t>("float8_e4m3fn", {3}, {0x38, 0xc2, 0x7e}).at(2), 448.0);
  EXPECT_TRUE(std::isnan(make<std::uint8_t>("float8_e4m3fn", {1}, {0x7f}).at(0)));
  EXPECT_DOUBLE_EQ(make<std::uint8_t>("float8_e5m2", {1}, {0x3c}).at(0), 1.0);
  EXPECT_TRUE(std::isinf(make<std::uint8_t>("float8_e5m2", {1}, {0x7c}).at(0)));
  EXPECT_DOUBLE_EQ(make<std::int64_t>("int64", {1}, {-7}).at(0), -7);
}

TEST(TensorFile, ComparesWithTolerance) {
  const auto ref = make<float>("float32", {3}, {1.0f, 2.0f, 100.0f});
  EXPECT_TRUE(compare_tensors(make<float>("float32", {3}, {1.005f, 2.0f, 100.5f}), ref, {0.01, 0.01}).ok);
  const auto bad = compare_tensors(make<float>("float32", {3}, {1.0f, 2.5f, 100.0f}), ref, {0.01, 0.01});
  EXPECT_FALSE(bad.ok);
  EXPECT_EQ(bad.mismatches, 1u);
  EXPECT_EQ(bad.first_mismatch, 1);
  EXPECT_NEAR(bad.max_abs_error, 0.5, 1e-6);
  // Exact when the tolerance is zero (topk indices).
  EXPECT_FALSE(compare_tensors(make<std::int64_t>("int64", {1}, {4}), make<std::int64_t>("int64", {1}, {5}), {0, 0}).ok);
  EXPECT_TRUE(compare_tensors(make<std::int64_t>("int64", {1}, {5}), make<std::int64_t>("int64", {1}, {5}), {0, 0}).ok);
}

TEST(TensorFile, NanPoisonAndShapeOrDtypeMismatch) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const auto ref = make<float>("float32", {2}, {1.0f, nan});
  EXPECT_TRUE(compare_tensors(make<float>("float32", {2}, {1.0f, nan}), ref, {}).ok);
  EXPECT_FALSE(compare_tensors(make<float>("float32", {2}, {nan, nan}), ref, {}).ok);  // a NaN where a number is
  EXPECT_FALSE(compare_tensors(make<float>("float32", {2}, {inf, nan}), ref, {}).ok);
  EXPECT_FALSE(compare_tensors(make<float>("float32", {1, 2}, {1.0f, nan}), ref, {}).ok);
  const auto c = compare_tensors(make<double>("float64", {2}, {1.0, 0.0}), ref, {});
  EXPECT_FALSE(c.ok);
  EXPECT_NE(c.reason.find("dtype"), std::string::npos);
}
