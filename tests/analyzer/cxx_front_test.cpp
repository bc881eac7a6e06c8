// Tests of the C++/CUDA front (analyzer/cxx/front.cpp): facts read off real
// Clang ASTs of load_inline-style sources, against the stub torch headers and
// the CUDA 13 toolkit.
#include "analyzer/cxx/front.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>

namespace kaudit::analyzer::cxx {
namespace {

std::string read_input(const std::string& name) {
  std::ifstream in(std::string(KAUDIT_SOURCE_DIR) + "/tests/analyzer/cxx_front/" + name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

SourceFile cuda_source(std::string text, std::string path = "solution.py:load_inline.cuda_sources@12.cu") {
  SourceFile f;
  f.path = std::move(path);
  f.language = Language::cuda;
  f.text = std::move(text);
  return f;
}

void dump(const Facts& f) {
  if (!std::getenv("KAUDIT_DUMP_FACTS")) return;
  std::cerr << "parsed=" << f.parsed << "\n";
  for (auto& e : f.errors) std::cerr << "error " << e.line << ": " << e.message << "\n";
  for (auto& i : f.includes) std::cerr << "include " << i.line << " " << i.header << " found=" << i.found << "\n";
  for (auto& c : f.calls)
    std::cerr << "call " << c.line << ":" << c.column << " " << c.callee << " spelled=" << c.spelled
              << " device=" << c.in_device_code << " in=" << c.enclosing_function << "\n";
  for (auto& k : f.kernels) std::cerr << "kernel " << k.line << " " << k.name << "\n";
  for (auto& l : f.launches)
    std::cerr << "launch " << l.line << " " << l.kernel << " via " << l.via << " explicit=" << l.explicit_stream
              << " stream=" << l.stream << "\n";
  for (auto& s : f.statics)
    std::cerr << "static " << s.line << " " << s.name << " : " << s.type << " local=" << s.function_local
              << " const=" << s.is_const << " space=" << s.cuda_space << "\n";
  for (auto& s : f.size_literals) std::cerr << "size " << s.line << " " << s.value << " vs " << s.compared_with << "\n";
  for (auto& n : f.names) std::cerr << "name " << n.line << " " << n.kind << " " << n.name << "\n";
  for (auto& c : f.conversions) std::cerr << "conv " << c.line << " " << c.from_type << " -> " << c.to_type << "\n";
}

const Call* find_call(const Facts& f, std::string_view callee, int line = 0) {
  for (const auto& c : f.calls)
    if (c.callee == callee && (line == 0 || c.line == line)) return &c;
  return nullptr;
}

bool has_name(const Facts& f, std::string_view name, std::string_view kind, int line = 0) {
  return std::any_of(f.names.begin(), f.names.end(), [&](const NameReference& n) {
    return n.name == name && n.kind == kind && (line == 0 || n.line == line);
  });
}

bool has_size_literal(const Facts& f, long long value, std::string_view with, int line = 0) {
  return std::any_of(f.size_literals.begin(), f.size_literals.end(), [&](const SizeLiteral& s) {
    return s.value == value && s.compared_with == with && (line == 0 || s.line == line);
  });
}

class GemmInline : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    facts_ = new Facts(read_facts(cuda_source(read_input("gemm_inline.cu"))));
    dump(*facts_);
  }
  static void TearDownTestSuite() { delete facts_; }
  static const Facts& facts() { return *facts_; }
  static Facts* facts_;
};
Facts* GemmInline::facts_ = nullptr;

TEST_F(GemmInline, ParsesWithoutErrors) {
  EXPECT_TRUE(facts().parsed);
  for (const auto& e : facts().errors) ADD_FAILURE() << "line " << e.line << ": " << e.message;
}

TEST_F(GemmInline, ResolvesMacroToCallee) {
  const Call* c = find_call(facts(), "cublasSgemm_v2");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->spelled, "cublasSgemm");
  EXPECT_EQ(c->line, 73);
  EXPECT_FALSE(c->in_device_code);
  EXPECT_EQ(c->enclosing_function, "forward");
}

TEST_F(GemmInline, QualifiesTorchCalls) {
  ASSERT_NE(find_call(facts(), "at::matmul", 54), nullptr);       // torch::matmul
  ASSERT_NE(find_call(facts(), "at::Tensor::matmul", 75), nullptr);  // a.matmul(b)
  ASSERT_NE(find_call(facts(), "torch::empty", 62), nullptr);
  ASSERT_NE(find_call(facts(), "c10::cuda::getCurrentCUDAStream", 65), nullptr);
  ASSERT_NE(find_call(facts(), "std::thread::thread", 84), nullptr);
}

TEST_F(GemmInline, FlagsDeviceCalls) {
  const Call* c = find_call(facts(), "__nv_cvt_fp8_to_halfraw");
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(c->in_device_code);
  EXPECT_EQ(c->enclosing_function, "fp8_upcast");
  const Call* s = find_call(facts(), "__syncthreads");
  ASSERT_NE(s, nullptr);
  EXPECT_TRUE(s->in_device_code);
}

TEST_F(GemmInline, Kernels) {
  std::vector<std::string> names;
  for (const auto& k : facts().kernels) names.push_back(k.name + "@" + std::to_string(k.line));
  EXPECT_EQ(names, (std::vector<std::string>{"gemm_kernel@20", "fp8_upcast@37"}));
}

TEST_F(GemmInline, Launches) {
  ASSERT_EQ(facts().launches.size(), 3u);
  const auto& a = facts().launches[0];
  EXPECT_EQ(a.kernel, "gemm_kernel");
  EXPECT_EQ(a.via, "<<<>>>");
  EXPECT_EQ(a.line, 67);
  EXPECT_TRUE(a.explicit_stream);
  EXPECT_EQ(a.stream, "stream");
  const auto& b = facts().launches[1];
  EXPECT_EQ(b.line, 70);
  EXPECT_FALSE(b.explicit_stream);
  const auto& c = facts().launches[2];
  EXPECT_EQ(c.via, "cudaLaunchKernel");
  EXPECT_EQ(c.kernel, "fp8_upcast");
  EXPECT_TRUE(c.explicit_stream);
}

TEST_F(GemmInline, Statics) {
  std::vector<std::string> got;
  for (const auto& s : facts().statics)
    got.push_back(s.name + "@" + std::to_string(s.line) + (s.function_local ? " local" : "") + (s.is_const ? " const" : "") +
                  (s.cuda_space.empty() ? "" : " " + s.cuda_space));
  EXPECT_EQ(got, (std::vector<std::string>{"TILE@15 const", "g_cache@16", "c_scale@17 __constant__", "calls@56 local"}));
  EXPECT_EQ(facts().statics[1].type, "std::unordered_map<int64_t, torch::Tensor>");
}

TEST_F(GemmInline, SizeLiterals) {
  EXPECT_TRUE(has_size_literal(facts(), 4096, "a.size(1)", 50));
  EXPECT_TRUE(has_size_literal(facts(), 4127, "M", 54));
  EXPECT_TRUE(has_size_literal(facts(), 8192, "a.sizes()[0]", 55));
  EXPECT_TRUE(has_size_literal(facts(), 1024, "a.size(0)", 80));
  EXPECT_TRUE(has_size_literal(facts(), 2048, "a.size(0)", 81));
  for (const auto& s : facts().size_literals) EXPECT_NE(s.compared_with, "k") << "loop variables are not sizes";
}

TEST_F(GemmInline, Names) {
  EXPECT_TRUE(has_name(facts(), "cudaStreamAttrValue", "type", 76));
  EXPECT_TRUE(has_name(facts(), "accessPolicyWindow", "field", 77));
  EXPECT_TRUE(has_name(facts(), "hitRatio", "field", 77));
  EXPECT_TRUE(has_name(facts(), "cudaLimitPersistingL2CacheSize", "enum", 78));
  EXPECT_TRUE(has_name(facts(), "fp8_upcast", "function", 87));
}

TEST_F(GemmInline, DeviceConversions) {
  bool fp8_to_float = false;
  for (const auto& c : facts().conversions)
    if (c.from_type == "__nv_fp8_e4m3" && c.to_type == "float" && c.line == 40) fp8_to_float = true;
  EXPECT_TRUE(fp8_to_float);
  for (const auto& c : facts().conversions) EXPECT_GE(c.line, 20) << "conversions are recorded in device code only";
}

TEST_F(GemmInline, Includes) {
  ASSERT_GE(facts().includes.size(), 9u);
  EXPECT_EQ(facts().includes[0].header, "torch/extension.h");
  for (const auto& i : facts().includes) EXPECT_TRUE(i.found) << i.header;
}

}  // namespace
}  // namespace kaudit::analyzer::cxx
