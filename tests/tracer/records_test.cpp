// CUPTI activity records, made by hand, as the tracer writes them into its
// journal: every line must be one valid JSON object that the trace model can
// read, whatever bytes a kernel's name holds.
#include "tracer/inject/json_line.h"
#include "tracer/inject/records.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstring>
#include <string>

namespace kaudit::tracer::inject {
namespace {

using nlohmann::json;

json parse_line(const std::string& out) {
  EXPECT_FALSE(out.empty());
  EXPECT_EQ(out.back(), '\n');
  EXPECT_EQ(out.find('\n'), out.size() - 1) << "one record, one line";
  return json::parse(out);  // throws on invalid JSON or UTF-8
}

CUpti_ActivityKernel10 kernel_named(const char* name) {
  CUpti_ActivityKernel10 k;
  std::memset(&k, 0, sizeof k);
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.name = name;
  k.correlationId = 77;
  k.gridX = 128;
  k.gridY = 2;
  k.gridZ = 1;
  k.blockX = 256;
  k.blockY = 1;
  k.blockZ = 1;
  k.registersPerThread = 40;
  k.dynamicSharedMemory = 49152;
  k.streamId = 7;
  k.graphId = 3;
  k.graphNodeId = 1234567890123ULL;
  k.start = 1'700'000'000'000'000'123ULL;
  k.end = 1'700'000'000'000'900'456ULL;
  return k;
}

TEST(TracerRecords, KernelLineHasEveryField) {
  const auto k = kernel_named("_Z10add_kernelPfS_i");
  std::string out;
  ASSERT_TRUE(append_record_line(reinterpret_cast<const CUpti_Activity*>(&k), out));
  const json j = parse_line(out);
  EXPECT_EQ(j["type"], "kernel");
  EXPECT_EQ(j["corr"], 77);
  EXPECT_EQ(j["name"], "_Z10add_kernelPfS_i");
  EXPECT_EQ(j["demangled"], "add_kernel(float*, float*, int)");
  EXPECT_EQ(j["grid"], json::array({128, 2, 1}));
  EXPECT_EQ(j["block"], json::array({256, 1, 1}));
  EXPECT_EQ(j["regs"], 40);
  EXPECT_EQ(j["smem_dynamic"], 49152);
  EXPECT_EQ(j["stream"], 7);
  EXPECT_EQ(j["graph"], 3);
  EXPECT_EQ(j["graph_node"].get<uint64_t>(), 1234567890123ULL);
  EXPECT_EQ(j["start"].get<uint64_t>(), 1'700'000'000'000'000'123ULL);  // 64-bit timestamps exactly
  EXPECT_EQ(j["end"].get<uint64_t>(), 1'700'000'000'000'900'456ULL);
  EXPECT_FALSE(j.contains("device_launched"));
}

TEST(TracerRecords, PlainNameHasNoDemangledField) {
  const auto k = kernel_named("triton_poi_fused_add_0");
  std::string out;
  append_record_line(reinterpret_cast<const CUpti_Activity*>(&k), out);
  const json j = parse_line(out);
  EXPECT_EQ(j["name"], "triton_poi_fused_add_0");
  EXPECT_FALSE(j.contains("demangled"));
}

TEST(TracerRecords, HostileNamesStayOneValidLine) {
  // Quotes, backslashes, control characters, a newline, broken UTF-8.
  const std::string hostile = std::string("k\"}\n{\"type\":\"kernel\\") + '\x01' + "\xff\xfe" + "\xe2\x82" + "\xc3\xa9";
  const auto k = kernel_named(hostile.c_str());
  std::string out;
  append_record_line(reinterpret_cast<const CUpti_Activity*>(&k), out);
  const json j = parse_line(out);
  EXPECT_EQ(j["type"], "kernel");
  const std::string name = j["name"];
  EXPECT_EQ(name.substr(0, 17), "k\"}\n{\"type\":\"kern");
  EXPECT_NE(name.find('\x01'), std::string::npos);
  EXPECT_NE(name.find("\xef\xbf\xbd"), std::string::npos) << "invalid bytes become U+FFFD";
  EXPECT_NE(name.find("\xc3\xa9"), std::string::npos) << "valid UTF-8 is kept";
}

TEST(TracerRecords, NullNameIsEmpty) {
  const auto k = kernel_named(nullptr);
  std::string out;
  append_record_line(reinterpret_cast<const CUpti_Activity*>(&k), out);
  EXPECT_EQ(parse_line(out)["name"], "");
}

TEST(TracerRecords, MemcpyAndMemsetLines) {
  CUpti_ActivityMemcpy6 m;
  std::memset(&m, 0, sizeof m);
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
  m.bytes = 1ULL << 33;
  m.correlationId = 9;
  m.start = 10;
  m.end = 20;
  std::string out;
  ASSERT_TRUE(append_record_line(reinterpret_cast<const CUpti_Activity*>(&m), out));
  json j = parse_line(out);
  EXPECT_EQ(j["type"], "memcpy");
  EXPECT_EQ(j["copy_kind"], "DtoH");
  EXPECT_EQ(j["bytes"].get<uint64_t>(), 1ULL << 33);

  CUpti_ActivityMemset4 s;
  std::memset(&s, 0, sizeof s);
  s.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  s.value = 255;
  s.bytes = 4096;
  out.clear();
  ASSERT_TRUE(append_record_line(reinterpret_cast<const CUpti_Activity*>(&s), out));
  j = parse_line(out);
  EXPECT_EQ(j["type"], "memset");
  EXPECT_EQ(j["value"], 255);
  EXPECT_EQ(j["bytes"], 4096);
}

TEST(TracerRecords, UnexpectedKindIsReported) {
  CUpti_Activity a;
  std::memset(&a, 0, sizeof a);
  a.kind = CUPTI_ACTIVITY_KIND_PC_SAMPLING;
  std::string out;
  EXPECT_FALSE(append_record_line(&a, out));
  EXPECT_TRUE(out.empty());
}

TEST(TracerRecords, LaunchLineWriter) {
  std::string out;
  {
    JsonLine j(out, "launch");
    j.num("corr", 5u).str("api", "cuLaunchKernelEx").num("enter", uint64_t{1} << 62).boolean("captured", true);
    j.num("status", -3);
  }
  const json j = parse_line(out);
  EXPECT_EQ(j["api"], "cuLaunchKernelEx");
  EXPECT_EQ(j["enter"].get<uint64_t>(), uint64_t{1} << 62);
  EXPECT_EQ(j["captured"], true);
  EXPECT_EQ(j["status"], -3);
}

}  // namespace
}  // namespace kaudit::tracer::inject
