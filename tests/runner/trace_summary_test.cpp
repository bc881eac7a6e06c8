// The trace side of a run (runner/trace_summary.h) on a journal made by hand:
// which timed calls had work outside their timing, and timer reads in calls.
#include "run/trace_summary.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <unistd.h>

namespace fs = std::filesystem;

namespace {

// Shape 0: four timed bench calls, each a 1 ms kernel. Calls 1-3 have it on a
// side stream the caller never waited for (events measured 0.01 ms); call 4
// is honest (1.2 ms). The correctness call reads a GPU timer.
std::string journal() {
  std::string j =
      R"({"type":"process","schema":"kaudit-trace-journal/1","pid":77,"ppid":1,"exe":"python3","argv":["python3"]})"
      "\n"
      R"({"type":"cupti","api_version":130001,"compiled_api_version":130001,"driver_version":13000,"subscribed":true})"
      "\n"
      R"({"type":"launcher","id":1,"api":"cuLaunchKernelEx","object":"/tmp/.triton/cache/x/__triton_launcher.so","symbol":"","how":"stack","chain":[]})"
      "\n"
      R"({"type":"call_begin","call":1,"phase":"correctness","shape":"0","mode":"","index":0,"ts":100,"tid":7})"
      "\n"
      R"({"type":"launch","corr":1,"api":"cuLaunchKernelEx","tid":7,"enter":110,"exit":120,"launcher":1,"call":1})"
      "\n"
      R"({"type":"launch","corr":2,"api":"cudaEventElapsedTime","tid":7,"enter":130,"exit":140,"call":1})"
      "\n"
      R"({"type":"call_end","call":1,"ts":900})"
      "\n"
      R"({"type":"kernel","corr":1,"name":"topk_kernel","grid":[1,1,1],"block":[128,1,1],"cluster":[0,0,0],"regs":16,"smem_static":0,"smem_dynamic":0,"device":0,"context":1,"stream":7,"graph":0,"graph_node":0,"start":200,"end":800})"
      "\n";
  for (int k = 0; k < 4; ++k) {
    const long base = 10'000'000L * (k + 1), call = k + 2, corr = 10 + k;
    j += R"({"type":"call_begin","call":)" + std::to_string(call) +
         R"(,"phase":"timed","shape":"0","mode":"bench","index":)" + std::to_string(k) + R"(,"ts":)" +
         std::to_string(base) + R"(,"tid":7})" + "\n";
    j += R"({"type":"launch","corr":)" + std::to_string(corr) +
         R"(,"api":"cuLaunchKernelEx","tid":7,"enter":)" + std::to_string(base + 10) + R"(,"exit":)" +
         std::to_string(base + 20) + R"(,"launcher":1,"call":)" + std::to_string(call) + "}\n";
    j += R"({"type":"call_end","call":)" + std::to_string(call) + R"(,"ts":)" + std::to_string(base + 2'000'000) +
         "}\n";
    j += R"({"type":"kernel","corr":)" + std::to_string(corr) +
         R"(,"name":"topk_kernel","grid":[1,1,1],"block":[128,1,1],"cluster":[0,0,0],"regs":16,"smem_static":0,"smem_dynamic":0,"device":0,"context":1,"stream":9,"graph":0,"graph_node":0,"start":)" +
         std::to_string(base + 100) + R"(,"end":)" + std::to_string(base + 1'000'100) + "}\n";
  }
  j += R"({"type":"end","reason":"exit","dropped":0,"launches":5})" "\n";
  return j;
}

std::set<std::string> ids(const std::vector<kaudit::rules::Finding>& fs) {
  std::set<std::string> out;
  for (const auto& f : fs) out.insert(f.id);
  return out;
}

class TraceSummary : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("kaudit-trace-summary-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::ofstream(dir / "kaudit-trace.77.jsonl") << journal();
  }
  void TearDown() override { fs::remove_all(dir); }
  fs::path dir;
};

TEST_F(TraceSummary, TimedCallsBusierThanTheirEventsAreWorkOutsideTiming) {
  std::vector<kaudit::rules::Finding> findings;
  const kaudit::run::TimedCallTimes measured = {{{"0", "bench"}, {0.01, 0.01, 0.01, 1.2}}};
  const auto doc = kaudit::run::summarize_trace(dir, 77, "solution.py", findings, nullptr, {}, measured);
  if (doc["status"] == "unavailable") GTEST_SKIP() << "kaudit built without the trace model";
  ASSERT_EQ(doc["status"], "ok") << doc.dump();
  EXPECT_EQ(ids(findings), (std::set<std::string>{"gpu-work-outside-timing", "timer-read-in-call"}));
  for (const auto& g : doc["groups"]) {
    if (g["phase"] != "timed") continue;
    EXPECT_EQ(g["calls_outlasting_timing"], 3);
    EXPECT_DOUBLE_EQ(g["median_busy_ms"].get<double>(), 1.0);
  }
}

TEST_F(TraceSummary, HonestTimingIsNoFinding) {
  std::vector<kaudit::rules::Finding> findings;
  const kaudit::run::TimedCallTimes measured = {{{"0", "bench"}, {1.1, 1.05, 1.2, 1.2}}};
  const auto doc = kaudit::run::summarize_trace(dir, 77, "solution.py", findings, nullptr, {}, measured);
  if (doc["status"] == "unavailable") GTEST_SKIP() << "kaudit built without the trace model";
  EXPECT_EQ(ids(findings), (std::set<std::string>{"timer-read-in-call"}));
}

TEST_F(TraceSummary, ExportKeepsTheFirstCallsOfEachShapeAndMode) {
  // Three correctness cases of another shape: the first two are exported.
  std::ofstream more(dir / "kaudit-trace.77.jsonl", std::ios::app);
  for (int c = 0; c < 3; ++c) {
    const std::string call = std::to_string(20 + c), corr = std::to_string(30 + c), t = std::to_string(90'000'000 + c * 1000);
    more << R"({"type":"call_begin","call":)" << call << R"(,"phase":"correctness","shape":"1","mode":"","index":)" << c
         << R"(,"ts":)" << t << "}\n"
         << R"({"type":"launch","corr":)" << corr << R"(,"api":"cuLaunchKernelEx","tid":7,"enter":)" << t
         << R"(,"exit":)" << t << R"(,"launcher":1,"call":)" << call << "}\n"
         << R"({"type":"call_end","call":)" << call << R"(,"ts":)" << t << "}\n"
         << R"({"type":"kernel","corr":)" << corr << R"(,"name":"topk_kernel","stream":7,"start":)" << t
         << R"(,"end":)" << t << "}\n";
  }
  more.close();
  std::vector<kaudit::rules::Finding> findings;
  const auto doc = kaudit::run::summarize_trace(dir, 77, "solution.py", findings, nullptr, dir / "export", {});
  if (doc["status"] == "unavailable") GTEST_SKIP() << "kaudit built without the trace model";
  std::ifstream in(dir / "export" / "trace.json");
  const auto exported = nlohmann::json::parse(in);
  const auto& p = exported["processes"][0];
  EXPECT_EQ(p["kernels"].size(), 5u) << "shape 0's correctness call, its timed calls 0 and 1, shape 1's cases 0 and 1";
  bool noted = false;
  for (const auto& n : p["notes"]) noted = noted || n["text"].get<std::string>().find("exported 5 of 8") != std::string::npos;
  EXPECT_TRUE(noted) << p["notes"].dump();
  EXPECT_TRUE(fs::exists(dir / "export" / "trace.chrome.json"));
}

}  // namespace
