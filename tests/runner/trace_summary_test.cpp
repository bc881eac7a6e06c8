// The trace side of a run (runner/trace_summary.h) on a journal made by hand:
// which timed calls had work outside their timing, and timer reads in calls.
#include "runner/judge/trace_summary.h"
#include "rules/rule_pack.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <optional>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <unistd.h>

namespace fs = std::filesystem;

namespace {
using json = nlohmann::json;

// run.json's trace as the summary of a journal writes it.
json summarized(const fs::path& dir, long pid, const std::string& solution,
                std::vector<kaudit::rules::Finding>& findings, const kaudit::rules::RulePack* pack = nullptr,
                const fs::path& export_dir = {}, const kaudit::run::TimedCallTimes& timed_ms = {},
                const fs::path& reference_dir = {}) {
  return kaudit::evidence::to_json(
      kaudit::run::summarize_trace(dir, pid, solution, findings, pack, export_dir, timed_ms, reference_dir));
}

// Process 77's journal begins: CUPTI subscribed, one Triton launcher.
std::string journal_head() {
  return
      R"({"type":"process","schema":"kaudit-trace-journal/1","pid":77,"ppid":1,"exe":"python3","argv":["python3"]})"
      "\n"
      R"({"type":"cupti","api_version":130001,"compiled_api_version":130001,"driver_version":13000,"subscribed":true})"
      "\n"
      R"({"type":"launcher","id":1,"api":"cuLaunchKernelEx","object":"/tmp/.triton/cache/x/__triton_launcher.so","symbol":"","how":"stack","chain":[]})"
      "\n";
}

// Shape 0: four timed bench calls, each a 1 ms kernel. Calls 1-3 have it on a
// side stream the caller never waited for (events measured 0.01 ms); call 4
// is honest (1.2 ms). The correctness call reads a GPU timer.
std::string journal() {
  std::string j =
      journal_head() +
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
  const auto doc = summarized(dir, 77, "solution.py", findings, nullptr, {}, measured);
  if (doc["status"] == "unavailable") GTEST_SKIP() << "kaudit built without the trace model";
  ASSERT_EQ(doc["status"], "ok") << doc.dump();
  EXPECT_EQ(ids(findings), (std::set<std::string>{"gpu-work-outside-timing"}));
  for (const auto& g : doc["groups"]) {
    if (g["phase"] != "timed") continue;
    EXPECT_EQ(g["calls_outlasting_timing"], 3);
    EXPECT_DOUBLE_EQ(g["median_busy_ms"].get<double>(), 1.0);
  }
}

TEST_F(TraceSummary, HonestTimingIsNoFinding) {
  std::vector<kaudit::rules::Finding> findings;
  const kaudit::run::TimedCallTimes measured = {{{"0", "bench"}, {1.1, 1.05, 1.2, 1.2}}};
  const auto doc = summarized(dir, 77, "solution.py", findings, nullptr, {}, measured);
  if (doc["status"] == "unavailable") GTEST_SKIP() << "kaudit built without the trace model";
  // The correctness call's timer read is first-call tuning (autotune, events
  // around candidates): honest, and no finding (it was timer-read-in-call).
  EXPECT_EQ(ids(findings), (std::set<std::string>{}));
}

TEST_F(TraceSummary, ATimerReadInsideATimedCallIsALead) {
  std::string j = journal();
  const std::string timed_read =
      R"({"type":"call_begin","call":40,"phase":"timed","shape":"0","mode":"fresh","index":0,"ts":95000000,"tid":7})"
      "\n"
      R"({"type":"launch","corr":41,"api":"cudaEventElapsedTime","tid":7,"enter":95000010,"exit":95000020,"call":40})"
      "\n"
      R"({"type":"call_end","call":40,"ts":95000900})"
      "\n";
  j.insert(j.find(R"({"type":"end")"), timed_read);
  std::ofstream(dir / "kaudit-trace.77.jsonl") << j;
  std::vector<kaudit::rules::Finding> findings;
  const kaudit::run::TimedCallTimes measured = {{{"0", "bench"}, {1.1, 1.05, 1.2, 1.2}}};
  const auto doc = summarized(dir, 77, "solution.py", findings, nullptr, {}, measured);
  if (doc["status"] == "unavailable") GTEST_SKIP() << "kaudit built without the trace model";
  ASSERT_TRUE(ids(findings).count("timer-read-in-call")) << doc.dump();
  for (const auto& f : findings) {
    if (f.id == "timer-read-in-call") {
      EXPECT_EQ(f.location.symbol, "timed calls, shape 0, fresh");
    }
  }
}

// Process 77's journals in `dir` summarised and exported: the exported
// trace.json's process; null where kaudit has no trace model.
nlohmann::json exported_process(const fs::path& dir) {
  std::vector<kaudit::rules::Finding> findings;
  const auto doc = summarized(dir, 77, "solution.py", findings, nullptr, dir / "export", {});
  if (doc["status"] == "unavailable") return nullptr;
  std::ifstream in(dir / "export" / "trace.json");
  return nlohmann::json::parse(in)["processes"][0];
}

bool noted(const nlohmann::json& process, const std::string& text) {
  for (const auto& n : process["notes"])
    if (n["text"].get<std::string>().find(text) != std::string::npos) return true;
  return false;
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
  const auto p = exported_process(dir);
  if (p.is_null()) GTEST_SKIP() << "kaudit built without the trace model";
  EXPECT_EQ(p["kernels"].size(), 5u) << "shape 0's correctness call, its timed calls 0 and 1, shape 1's cases 0 and 1";
  EXPECT_TRUE(noted(p, "exported 5 of 8")) << p["notes"].dump();
  EXPECT_TRUE(fs::exists(dir / "export" / "trace.chrome.json"));
}

// Calls whose kernels together pass the export's budget (20,000 kernels): the
// file keeps each group's first call before any second one, in order up to
// the budget, and says how many it left out. A submission that fills its
// correctness cases with kernels does not push its timed calls out of it.
TEST_F(TraceSummary, ExportStopsAtItsKernelBudget) {
  std::ofstream out(dir / "kaudit-trace.77.jsonl");
  out << journal_head();
  long corr = 1, t = 1000;
  for (int c = 1; c <= 30; ++c) {  // 15 shapes' first two correctness cases, then shape 0's timed calls 0 and 1
    const bool timed = c > 28;
    out << R"({"type":"call_begin","call":)" << c << R"(,"phase":")" << (timed ? "timed" : "correctness")
        << R"(","shape":")" << (timed ? 0 : c / 2) << R"(","mode":")" << (timed ? "bench" : "") << R"(","index":)"
        << (timed ? c - 29 : c % 2) << R"(,"ts":)" << t << "}\n";
    for (int k = 0; k < 1000; ++k, ++corr, t += 10)
      out << R"({"type":"launch","corr":)" << corr << R"(,"api":"cuLaunchKernelEx","tid":7,"enter":)" << t
          << R"(,"exit":)" << t + 1 << R"(,"launcher":1,"call":)" << c << "}\n"
          << R"({"type":"kernel","corr":)" << corr << R"(,"name":"topk_kernel","stream":7,"start":)" << t + 2
          << R"(,"end":)" << t + 8 << "}\n";
    out << R"({"type":"call_end","call":)" << c << R"(,"ts":)" << t << "}\n";
  }
  out << R"({"type":"end","reason":"exit","dropped":0,"launches":30000})" << "\n";
  out.close();
  const auto p = exported_process(dir);
  if (p.is_null()) GTEST_SKIP() << "kaudit built without the trace model";
  EXPECT_EQ(p["kernels"].size(), 20000u);
  EXPECT_EQ(p["launches"].size(), 20000u);
  EXPECT_TRUE(noted(p, "exported 20000 of 30000")) << p["notes"].dump();
  std::set<long> calls;
  for (const auto& k : p["kernels"]) calls.insert(k["call"].get<long>());
  EXPECT_TRUE(calls.count(29)) << "the first timed call";
  EXPECT_FALSE(calls.count(30)) << "a group's second call waits for every group's first";
}

// The runner begins reading the journals when the submission's processes
// end and summarises them later (JournalRead): the summary, its findings and
// the exported files are those of a read at the end, and a read never taken
// is waited for, not left writing into freed memory.
TEST_F(TraceSummary, JournalsReadAheadSummariseAsThoughReadAtTheEnd) {
  const kaudit::run::TimedCallTimes measured = {{{"0", "bench"}, {0.01, 0.01, 0.01, 1.2}}};
  std::vector<kaudit::rules::Finding> at_end, ahead;
  const auto read_at_end = summarized(dir, 77, "solution.py", at_end, nullptr, dir / "at_end", measured);
  if (read_at_end["status"] == "unavailable") GTEST_SKIP() << "kaudit built without the trace model";
  const auto made = std::chrono::steady_clock::now();
  kaudit::run::JournalRead journals(dir, 77, dir / "ahead");
  const auto read_ahead =
      kaudit::evidence::to_json(kaudit::run::summarize_trace(journals, 77, "solution.py", ahead, nullptr, measured));
  const double since_made = std::chrono::duration<double>(std::chrono::steady_clock::now() - made).count();
  EXPECT_EQ(ids(ahead), ids(at_end));
  EXPECT_EQ(read_ahead["groups"], read_at_end["groups"]);
  EXPECT_EQ(read_ahead["files"].size(), 2u);
  for (const char* file : {"trace.json", "trace.chrome.json"}) {
    std::ifstream a(dir / "ahead" / file), b(dir / "at_end" / file);
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(a), {}), std::string(std::istreambuf_iterator<char>(b), {}))
        << file;
  }
  // The wait may exceed the read (the thread may start late on a busy
  // machine), never the time since the read was asked for.
  EXPECT_GE(journals.wait_seconds(), 0);
  EXPECT_LE(journals.wait_seconds(), since_made);
  // Where the read went: the journals' bytes, their loading and the export, within the read.
  double bytes = 0;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".jsonl") bytes += static_cast<double>(e.file_size());
  const auto split = journals.split();
  EXPECT_GT(bytes, 0);
  EXPECT_EQ(split.bytes, bytes);
  EXPECT_GT(split.load_seconds, 0);
  EXPECT_GT(split.export_seconds, 0);
  EXPECT_LE(split.load_seconds + split.export_seconds, journals.read_seconds() + 1e-9);
  { kaudit::run::JournalRead never_taken(dir, 77, dir / "never"); }
  kaudit::run::JournalRead missing(dir / "missing", 77, {});
  std::vector<kaudit::rules::Finding> none;
  const auto failed = kaudit::run::summarize_trace(missing, 77, "solution.py", none);
  EXPECT_EQ(failed.status, "failed");
  EXPECT_NE(failed.reason.find("cannot list"), std::string::npos) << failed.reason;
}

// A journal of timed bench calls on shape 0, each with the given kernels:
// (launching object, kernel name, microseconds). Launcher ids follow the
// order of first appearance.
const std::string kTriton = "/tmp/.triton/cache/x/__triton_launcher.so";
const std::string kCublasLt = "/usr/lib/x86_64-linux-gnu/libcublasLt.so.13";
const std::string kTorchCuda = "/usr/lib/python3/dist-packages/torch/lib/libtorch_cuda.so";

using Kernels = std::vector<std::tuple<std::string, std::string, long>>;

// Bench calls with `kernels`, then (when given) as many fresh calls with `fresh`.
// With `reference`, the reference's process (pid 79) instead: its marked
// expected-output calls.
std::string timed_journal(const Kernels& kernels, int calls = 3, const Kernels& fresh = {}, bool reference = false) {
  std::string j =
      R"({"type":"process","schema":"kaudit-trace-journal/1","pid":)" + std::string(reference ? "79" : "78") +
      R"(,"ppid":1,"exe":"python3","argv":["python3"]})"
      "\n"
      R"({"type":"cupti","api_version":130001,"compiled_api_version":130001,"driver_version":13000,"subscribed":true})"
      "\n";
  std::vector<std::string> objects;
  Kernels all = kernels;
  all.insert(all.end(), fresh.begin(), fresh.end());
  for (const auto& [object, name, us] : all)
    if (std::find(objects.begin(), objects.end(), object) == objects.end()) {
      objects.push_back(object);
      j += R"({"type":"launcher","id":)" + std::to_string(objects.size()) + R"(,"api":"cuLaunchKernelEx","object":")" +
           object + R"(","symbol":"","how":"stack","chain":[]})" + "\n";
    }
  long corr = 1;
  for (int c = 0; c < (fresh.empty() ? 1 : 2) * calls; ++c) {
    const bool is_fresh = c >= calls;
    const long call = c + 1, base = 10'000'000L * (c + 1);
    j += R"({"type":"call_begin","call":)" + std::to_string(call) + R"(,"phase":")" +
         (reference ? "reference" : "timed") + R"(","shape":"0","mode":")" +
         (reference ? "expected" : is_fresh ? "fresh" : "bench") + R"(","index":)" + std::to_string(c % calls) + R"(,"ts":)" +
         std::to_string(base) + R"(,"tid":7})" + "\n";
    long t = base + 100;
    for (const auto& [object, name, us] : is_fresh ? fresh : kernels) {
      const long launcher = std::find(objects.begin(), objects.end(), object) - objects.begin() + 1;
      j += R"({"type":"launch","corr":)" + std::to_string(corr) + R"(,"api":"cuLaunchKernelEx","tid":7,"enter":)" +
           std::to_string(t) + R"(,"exit":)" + std::to_string(t + 5) + R"(,"launcher":)" + std::to_string(launcher) +
           R"(,"call":)" + std::to_string(call) + "}\n";
      j += R"({"type":"kernel","corr":)" + std::to_string(corr) + R"(,"name":")" + name +
           R"(","grid":[1,1,1],"block":[128,1,1],"cluster":[0,0,0],"regs":16,"smem_static":0,"smem_dynamic":0,"device":0,"context":1,"stream":7,"graph":0,"graph_node":0,"start":)" +
           std::to_string(t) + R"(,"end":)" + std::to_string(t + us * 1000) + "}\n";
      t += us * 1000 + 10;
      ++corr;
    }
    j += R"({"type":"call_end","call":)" + std::to_string(call) + R"(,"ts":)" + std::to_string(t + 1000) + "}\n";
  }
  j += R"({"type":"end","reason":"exit","dropped":0,"launches":)" + std::to_string(corr - 1) + "}\n";
  return j;
}


struct AuthoredShare : TraceSummary {
  // With `reference` kernels, the reference's traced calls too (their own folder).
  nlohmann::json summarize(const std::vector<std::tuple<std::string, std::string, long>>& kernels,
                           std::vector<kaudit::rules::Finding>& findings, double min_share = 0.8,
                           const std::vector<std::string>& banned = {}, const Kernels& reference = {}) {
    std::ofstream(dir / "kaudit-trace.78.jsonl") << timed_journal(kernels);
    fs::path reference_dir;
    if (!reference.empty()) {
      reference_dir = dir / "reference";
      fs::create_directories(reference_dir);
      std::ofstream(reference_dir / "kaudit-trace.79.jsonl") << timed_journal(reference, 5, {}, true);
    }
    kaudit::rules::RulePack pack = kaudit::rules::default_rule_pack();
    pack.banned_kernel_patterns = banned;  // by default nothing the library runs is banned: only the share decides
    pack.thresholds.min_own_kernel_share = min_share;
    return summarized(dir, 78, "solution.py", findings, &pack, {}, {}, reference_dir);
  }
};

// A fig leaf: the submission's own kernel is a trivial scale while cuBLAS
// does the GEMM, 90% of the GPU time.
TEST_F(AuthoredShare, LibraryDoingMostOfTheWorkIsFound) {
  std::vector<kaudit::rules::Finding> findings;
  const auto doc = summarize({{kCublasLt, "nvjet_tst_128x256_64x4_2x1_v_bz_coopA_TNT", 900},
                              {kTriton, "scale_rows_kernel", 100}},
                             findings);
  if (doc["status"] == "unavailable") GTEST_SKIP() << "kaudit built without the trace model";
  ASSERT_EQ(ids(findings), (std::set<std::string>{"library-does-the-work"})) << doc.dump();
  EXPECT_NE(findings[0].message.find("10%"), std::string::npos) << findings[0].message;
  ASSERT_EQ(doc["authored_share"].size(), 1u) << doc.dump();
  const auto& s = doc["authored_share"][0];
  EXPECT_EQ(s["shape"], "0");
  EXPECT_EQ(s["mode"], "bench");
  EXPECT_NEAR(s["share"].get<double>(), 0.1, 1e-6);
  EXPECT_NEAR(s["own_ms"].get<double>(), 0.3, 1e-6);      // three calls of 0.1 ms
  EXPECT_NEAR(s["library_ms"].get<double>(), 2.7, 1e-6);  // three of 0.9 ms
}

// Its own kernel does the work; ATen's glue (a copy, an elementwise cast)
// takes longer than the small library part, and counts for neither side.
TEST_F(AuthoredShare, OwnKernelDoingTheWorkWithGlueIsNoFinding) {
  std::vector<kaudit::rules::Finding> findings;
  const auto doc = summarize({{kTriton, "fp8_gemm_kernel", 900},
                              {kTorchCuda, "void at::native::vectorized_elementwise_kernel<4, CopyFunctor>", 500},
                              {kCublasLt, "nvjet_tst_64x64", 50}},
                             findings);
  if (doc["status"] == "unavailable") GTEST_SKIP() << "kaudit built without the trace model";
  EXPECT_EQ(ids(findings), (std::set<std::string>{})) << doc.dump();
  ASSERT_EQ(doc["authored_share"].size(), 1u) << doc.dump();
  EXPECT_NEAR(doc["authored_share"][0]["share"].get<double>(), 900.0 / 950.0, 1e-6);
  EXPECT_NEAR(doc["authored_share"][0]["glue_ms"].get<double>(), 1.5, 1e-6);
}

// A clean MoE's routing (on the H200: argsort, counts and index maps, 16-19%
// of the GPU time, on side streams) is glue the problem allows: its own
// share is the grouped GEMM's, 100% (it was library-does-the-work, cheat, at
// 81-84% against 85%).
TEST_F(AuthoredShare, RoutingSortScanAndHistogramAreGlue) {
  std::vector<kaudit::rules::Finding> findings;
  const auto doc = summarize({{kTriton, "grouped_gemm_swiglu_kernel", 820},
                              {kTorchCuda, "void at_cuda_detail::cub::DeviceRadixSortOnesweepKernel<Policy, true>", 80},
                              {kTorchCuda, "void at_cuda_detail::cub::DeviceScanKernel<Policy, int*, int*>", 50},
                              {kTorchCuda, "void at::cuda::kernelHistogram1D<int, int, long, 1, 2, -1>", 50}},
                             findings, 0.85);
  if (doc["status"] == "unavailable") GTEST_SKIP() << "kaudit built without the trace model";
  EXPECT_EQ(ids(findings), (std::set<std::string>{})) << doc.dump();
  EXPECT_NEAR(doc["authored_share"][0]["share"].get<double>(), 1.0, 1e-6);
}

// Where the problem bans the sort (a top-k), the same kernel is the work.
TEST_F(AuthoredShare, ABannedSortIsNeverGlue) {
  std::vector<kaudit::rules::Finding> findings;
  const auto doc = summarize({{kTorchCuda, "void at_cuda_detail::cub::DeviceRadixSortOnesweepKernel<Policy, true>", 900},
                              {kTriton, "gather_rows_kernel", 100}},
                             findings, 0.8, {"RadixSort"});
  if (doc["status"] == "unavailable") GTEST_SKIP() << "kaudit built without the trace model";
  EXPECT_TRUE(ids(findings).count("library-does-the-work")) << doc.dump();
  EXPECT_NEAR(doc["authored_share"][0]["share"].get<double>(), 0.1, 1e-6);
}

// Just under the threshold (82% against 85%) a library kernel the glue list
// does not name may be bookkeeping: a low-confidence lead, which never
// decides a verdict; far under it the finding keeps its medium confidence.
TEST_F(AuthoredShare, AShareNearTheThresholdIsOnlyALead) {
  std::vector<kaudit::rules::Finding> near, far;
  const auto doc = summarize({{kTriton, "grouped_gemm_kernel", 820},
                              {kTorchCuda, "void at::native::reduce_kernel<512, 1, ReduceOp<long>>", 180}},
                             near, 0.85);
  if (doc["status"] == "unavailable") GTEST_SKIP() << "kaudit built without the trace model";
  ASSERT_EQ(ids(near), (std::set<std::string>{"library-does-the-work"})) << doc.dump();
  EXPECT_EQ(near[0].confidence, kaudit::rules::Confidence::low);
  summarize({{kTriton, "grouped_gemm_kernel", 500}, {kTorchCuda, "void at::native::reduce_kernel<512>", 500}}, far, 0.85);
  ASSERT_EQ(ids(far), (std::set<std::string>{"library-does-the-work"}));
  EXPECT_EQ(far[0].confidence, kaudit::rules::Confidence::medium);
}

// Routing the glue list does not name (a reduction, 26% of the GPU time) is
// glue where the problem's own reference spends as much on unbanned kernels
// per call: no finding then, where without the reference's trace it was one.
TEST_F(AuthoredShare, GlueTheReferenceItselfSpendsIsAllowed) {
  const Kernels submission = {{kTriton, "grouped_gemm_kernel", 700},
                              {kTorchCuda, "void at::native::reduce_kernel<512, 1, ReduceOp<long>>", 250}};
  std::vector<kaudit::rules::Finding> alone, beside_reference;
  const auto without = summarize(submission, alone, 0.85, {"nvjet"});
  if (without["status"] == "unavailable") GTEST_SKIP() << "kaudit built without the trace model";
  EXPECT_EQ(ids(alone), (std::set<std::string>{"library-does-the-work"})) << without.dump();
  EXPECT_EQ(without["reference_glue"]["status"], "unavailable");
  const auto with = summarize(submission, beside_reference, 0.85, {"nvjet"},
                              {{kCublasLt, "nvjet_tst_128x256", 900},
                               {kTorchCuda, "void at::native::reduce_kernel<512, 1, ReduceOp<long>>", 200}});
  EXPECT_EQ(ids(beside_reference), (std::set<std::string>{})) << with.dump();
  ASSERT_EQ(with["reference_glue"]["status"], "ok") << with.dump();
  const auto& ref = with["reference_glue"]["shapes"][0];
  EXPECT_EQ(ref["calls"], 5);
  EXPECT_NEAR(ref["glue_ms_per_call"].get<double>(), 0.2, 1e-6);
  EXPECT_NEAR(ref["banned_ms_per_call"].get<double>(), 0.9, 1e-6);
  const auto& share = with["authored_share"][0];
  EXPECT_NEAR(share["reference_glue_ms_per_call"].get<double>(), 0.2, 1e-6);
  EXPECT_NEAR(share["library_counted_ms"].get<double>(), 0.0, 1e-9);  // 0.25 ms a call against 1.5 x 0.2
  EXPECT_NEAR(share["share"].get<double>(), 1.0, 1e-9);
}

// The runner reads the reference's journals ahead, once its first process
// has answered its own jobs. A journal without its end line then (the
// tracer not finished: its marked calls' kernels may still be in CUPTI's
// buffers) is read again at the summary: the glue allowed is the whole
// journal's, never the part written by then.
TEST_F(AuthoredShare, AReferenceJournalReadBeforeItEndedIsReadAgain) {
  const Kernels submission = {{kTriton, "grouped_gemm_kernel", 700},
                              {kTorchCuda, "void at::native::reduce_kernel<512, 1, ReduceOp<long>>", 250}};
  const Kernels reference = {{kCublasLt, "nvjet_tst_128x256", 900},
                             {kTorchCuda, "void at::native::reduce_kernel<512, 1, ReduceOp<long>>", 200}};
  std::ofstream(dir / "kaudit-trace.78.jsonl") << timed_journal(submission);
  const fs::path reference_dir = dir / "reference";
  fs::create_directories(reference_dir);
  const std::string whole = timed_journal(reference, 5, {}, true);
  std::string early;  // its calls marked, no kernel delivered yet, no end line
  std::istringstream lines(whole);
  for (std::string line; std::getline(lines, line);)
    if (line.find(R"("type":"kernel")") == std::string::npos && line.find(R"("type":"end")") == std::string::npos)
      early += line + "\n";
  std::ofstream(reference_dir / "kaudit-trace.79.jsonl") << early;
  kaudit::run::JournalRead ahead(reference_dir, 0, {});
  ahead.wait();
  std::ofstream(reference_dir / "kaudit-trace.79.jsonl") << whole;
  kaudit::rules::RulePack pack = kaudit::rules::default_rule_pack();
  pack.banned_kernel_patterns = {"nvjet"};
  pack.thresholds.min_own_kernel_share = 0.85;
  std::vector<kaudit::rules::Finding> findings;
  kaudit::run::JournalRead journals(dir, 78, {});
  const auto doc =
      kaudit::evidence::to_json(kaudit::run::summarize_trace(journals, 78, "solution.py", findings, &pack, {}, &ahead));
  if (doc["status"] == "unavailable") GTEST_SKIP() << "kaudit built without the trace model";
  ASSERT_EQ(doc["reference_glue"]["status"], "ok") << doc.dump();
  EXPECT_NEAR(doc["reference_glue"]["shapes"][0]["glue_ms_per_call"].get<double>(), 0.2, 1e-6) << doc.dump();
  EXPECT_EQ(ids(findings), (std::set<std::string>{})) << doc.dump();
}

// The allowance is the reference's glue, not its work: the same unbanned
// kernel doing the problem's work (0.9 ms a call, where the reference spends
// 0.1 ms on it) keeps all but 1.5 x 0.1 ms a call counted, and the finding
// decides; a library kernel the reference never ran gets no allowance at all.
TEST_F(AuthoredShare, TheReferencesGlueNeverCoversTheWork) {
  const Kernels reference = {{kCublasLt, "nvjet_tst_128x256", 900}, {kTorchCuda, "void at::native::reduce_kernel", 100}};
  std::vector<kaudit::rules::Finding> same_name, other_name;
  const auto doc = summarize({{kTriton, "scale_rows_kernel", 100}, {kTorchCuda, "void at::native::reduce_kernel", 900}},
                             same_name, 0.85, {"nvjet"}, reference);
  if (doc["status"] == "unavailable") GTEST_SKIP() << "kaudit built without the trace model";
  ASSERT_EQ(ids(same_name), (std::set<std::string>{"library-does-the-work"})) << doc.dump();
  EXPECT_EQ(same_name[0].confidence, kaudit::rules::Confidence::medium);
  EXPECT_NEAR(doc["authored_share"][0]["library_counted_ms"].get<double>(), 3 * (0.9 - 0.15), 1e-6);
  const auto other = summarize({{kTriton, "grouped_gemm_kernel", 700}, {kTorchCuda, "void at::native::unnamed_kernel", 250}},
                               other_name, 0.85, {"nvjet"}, reference);
  EXPECT_EQ(ids(other_name), (std::set<std::string>{"library-does-the-work"})) << other.dump();
  EXPECT_NEAR(other["authored_share"][0]["library_counted_ms"].get<double>(), 3 * 0.25, 1e-6);
}

// A reference none of whose kernels the pack bans gives no line between its
// work and its glue: no allowance, and the share is judged as without it.
TEST_F(AuthoredShare, AReferenceWithNoBannedKernelGivesNoAllowance) {
  std::vector<kaudit::rules::Finding> findings;
  const auto doc = summarize({{kTriton, "scale_rows_kernel", 100}, {kTorchCuda, "void at::native::reduce_kernel", 900}},
                             findings, 0.85, {"nvjet"}, {{kTorchCuda, "void at::native::reduce_kernel", 1000}});
  if (doc["status"] == "unavailable") GTEST_SKIP() << "kaudit built without the trace model";
  EXPECT_EQ(ids(findings), (std::set<std::string>{"library-does-the-work"})) << doc.dump();
  EXPECT_EQ(doc["reference_glue"]["shapes"][0]["counted"], false);
  EXPECT_TRUE(doc["authored_share"][0]["reference_glue_ms_per_call"].is_null());
}

// No kernel of its own at all is the other rule's (no-authored-kernel-ran),
// decided the same way: the share is 0.
TEST_F(AuthoredShare, NoOwnKernelIsTheOtherFindingWithShareZero) {
  std::vector<kaudit::rules::Finding> findings;
  const auto doc = summarize({{kCublasLt, "nvjet_tst_128x256", 900}}, findings);
  if (doc["status"] == "unavailable") GTEST_SKIP() << "kaudit built without the trace model";
  EXPECT_EQ(ids(findings), (std::set<std::string>{"no-authored-kernel-ran"})) << doc.dump();
  EXPECT_EQ(doc["authored_share"][0]["share"].get<double>(), 0.0);
}

// The threshold is the pack's: the same run passes a pack that asks less.
TEST_F(AuthoredShare, ThresholdComesFromThePack) {
  std::vector<kaudit::rules::Finding> findings;
  const auto doc = summarize({{kCublasLt, "nvjet_tst", 600}, {kTriton, "half_kernel", 400}}, findings, 0.3);
  if (doc["status"] == "unavailable") GTEST_SKIP() << "kaudit built without the trace model";
  EXPECT_EQ(ids(findings), (std::set<std::string>{})) << doc.dump();
}

}  // namespace

// A memo under a content fingerprint (issue 28): on the benchmark's repeated
// inputs the timed calls launch a small gather and a copy, on fresh inputs
// the real kernels. The trace names the skipped work: a cheat.
TEST_F(TraceSummary, WorkKernelsAbsentOnRepeatedInputsAreWorkSkipped) {
  std::ofstream(dir / "kaudit-trace.78.jsonl") << timed_journal(
      {{kTorchCuda, "at::native::index_elementwise_kernel<gather>", 3}, {kTorchCuda, "CatArrayBatchedCopy", 3},
       {kTorchCuda, "at::native::vectorized_elementwise_kernel<copy>", 4}},
      5,
      // The real kernel carries 60% of a fresh call: the small ones beside it are on both sides.
      {{kTorchCuda, "at::native::index_elementwise_kernel<gather>", 3}, {kTorchCuda, "CatArrayBatchedCopy", 3},
       {kTriton, "_w4a16_kernel", 20}, {kTorchCuda, "at::native::vectorized_elementwise_kernel<copy>", 8}});
  std::vector<kaudit::rules::Finding> findings;
  const auto doc = summarized(dir, 78, "solution.py", findings);
  if (doc["status"] == "unavailable") GTEST_SKIP() << "kaudit built without the trace model";
  ASSERT_EQ(ids(findings), (std::set<std::string>{"work-skipped-on-repeat"})) << doc.dump();
  EXPECT_EQ(findings[0].category, kaudit::rules::Category::cheat);
  EXPECT_EQ(findings[0].source, kaudit::rules::Source::trace);
  EXPECT_NE(findings[0].message.find("_w4a16_kernel"), std::string::npos) << findings[0].message;
  EXPECT_NE(findings[0].message.find("5 of 5 bench calls"), std::string::npos) << findings[0].message;
}

// The memo written by someone who read the rule above: on a hit it launches
// the work kernel's name too, on a grid of one block that returns at once.
TEST_F(TraceSummary, AHollowLaunchOfTheWorkKernelIsStillWorkSkipped) {
  std::ofstream(dir / "kaudit-trace.78.jsonl") << timed_journal(
      {{kTorchCuda, "at::native::index_elementwise_kernel<gather>", 3}, {kTriton, "_w4a16_kernel", 2},
       {kTorchCuda, "at::native::vectorized_elementwise_kernel<copy>", 4}},
      5,
      {{kTorchCuda, "at::native::index_elementwise_kernel<gather>", 3}, {kTriton, "_w4a16_kernel", 40},
       {kTorchCuda, "at::native::vectorized_elementwise_kernel<copy>", 8}});
  std::vector<kaudit::rules::Finding> findings;
  const auto doc = summarized(dir, 78, "solution.py", findings);
  if (doc["status"] == "unavailable") GTEST_SKIP() << "kaudit built without the trace model";
  ASSERT_EQ(ids(findings), (std::set<std::string>{"work-skipped-on-repeat"})) << doc.dump();
  EXPECT_NE(findings[0].message.find("5 of 5 bench calls"), std::string::npos) << findings[0].message;
}

// The same kernels on both sides, fresh slower (memory no call touched): honest.
TEST_F(TraceSummary, TheSameKernelsSlowerOnFreshInputsAreNotWorkSkipped) {
  std::ofstream(dir / "kaudit-trace.78.jsonl")
      << timed_journal({{kTriton, "grouped_gemm_swiglu_kernel", 300}}, 5, {{kTriton, "grouped_gemm_swiglu_kernel", 900}});
  std::vector<kaudit::rules::Finding> findings;
  const auto doc = summarized(dir, 78, "solution.py", findings);
  if (doc["status"] == "unavailable") GTEST_SKIP() << "kaudit built without the trace model";
  EXPECT_EQ(ids(findings), (std::set<std::string>{})) << doc.dump();
}

namespace {

// `calls` timed bench calls of 1 ms each; call c's kernel ends `late_us(c)`
// microseconds after its call's end (negative: before it), on the caller's
// stream, having run 0.9 ms; and `tiny` more kernels of the call each run
// 0.5 us and end 1 us after it.
template <typename LateUs>
std::string late_journal(int calls, LateUs late_us, int tiny = 0) {
  std::string j = journal_head();
  for (int c = 0; c < calls; ++c) {
    const long begin = 10'000'000L * (c + 1), end = begin + 1'000'000, call = c + 1, corr = 100 + c;
    const long kernel_end = end + static_cast<long>(late_us(c) * 1000);
    j += R"({"type":"call_begin","call":)" + std::to_string(call) +
         R"(,"phase":"timed","shape":"0","mode":"bench","index":)" + std::to_string(c) + R"(,"ts":)" +
         std::to_string(begin) + R"(,"tid":7})" + "\n";
    j += R"({"type":"launch","corr":)" + std::to_string(corr) + R"(,"api":"cuLaunchKernelEx","tid":7,"enter":)" +
         std::to_string(begin + 10) + R"(,"exit":)" + std::to_string(begin + 20) + R"(,"launcher":1,"call":)" +
         std::to_string(call) + "}\n";
    j += R"({"type":"call_end","call":)" + std::to_string(call) + R"(,"ts":)" + std::to_string(end) + "}\n";
    j += R"({"type":"kernel","corr":)" + std::to_string(corr) +
         R"(,"name":"splitk_kernel","grid":[1,1,1],"block":[128,1,1],"cluster":[0,0,0],"regs":16,"smem_static":0,"smem_dynamic":0,"device":0,"context":1,"stream":7,"graph":0,"graph_node":0,"start":)" +
         std::to_string(kernel_end - 900'000) + R"(,"end":)" + std::to_string(kernel_end) + "}\n";
    for (int t = 0; t < tiny; ++t) {
      const long tiny_corr = 10'000 + c * 1000 + t;
      j += R"({"type":"launch","corr":)" + std::to_string(tiny_corr) +
           R"(,"api":"cuLaunchKernelEx","tid":7,"enter":)" + std::to_string(begin + 30) + R"(,"exit":)" +
           std::to_string(begin + 40) + R"(,"launcher":1,"call":)" + std::to_string(call) + "}\n";
      j += R"({"type":"kernel","corr":)" + std::to_string(tiny_corr) +
           R"(,"name":"tiny_kernel","grid":[1,1,1],"block":[32,1,1],"cluster":[0,0,0],"regs":8,"smem_static":0,"smem_dynamic":0,"device":0,"context":1,"stream":7,"graph":0,"graph_node":0,"start":)" +
           std::to_string(end + 500) + R"(,"end":)" + std::to_string(end + 1000) + "}\n";
    }
  }
  j += R"({"type":"end","reason":"exit","dropped":0,"launches":1})" "\n";
  return j;
}

// The findings of a journal's timed calls; nothing without the trace model.
std::optional<std::vector<kaudit::rules::Finding>> judge_journal(const fs::path& dir, const std::string& journal,
                                                                 int calls) {
  std::ofstream(dir / "kaudit-trace.77.jsonl") << journal;
  std::vector<kaudit::rules::Finding> findings;
  const kaudit::run::TimedCallTimes measured = {{{"0", "bench"}, std::vector<double>(calls, 1.0)}};
  const auto doc = summarized(dir, 77, "solution.py", findings, nullptr, {}, measured);
  if (doc["status"] == "unavailable") return std::nullopt;
  if (doc["status"] != "ok") ADD_FAILURE() << doc.dump();
  return findings;
}

}  // namespace

// Session 24, one H100: an honest split-K and an honest paged attention were
// judged cheat for "kernels still running after the call's end event", 2 and
// 9 kernels of 20 calls, and the same machine showed kernels of warm-up calls
// (which end after a full synchronize) ending after their call: the clocks,
// not hidden work. A few microseconds now and then is no finding.
TEST_F(TraceSummary, KernelsSeenALittlePastTheEndNowAndThenAreTheClocks) {
  const auto sometimes = judge_journal(dir, late_journal(20, [](int c) { return c % 9 == 0 ? 8.0 : -5.0; }), 20);
  if (!sometimes) GTEST_SKIP() << "kaudit built without the trace model";
  EXPECT_EQ(ids(*sometimes), (std::set<std::string>{}));
  // A little late in every call is still the clocks.
  const auto always_a_little = judge_journal(dir, late_journal(20, [](int) { return 20.0; }), 20);
  ASSERT_TRUE(always_a_little);
  EXPECT_EQ(ids(*always_a_little), (std::set<std::string>{}));
}

// Work left running well past most calls' end is hidden from the timer.
TEST_F(TraceSummary, KernelsRunningWellPastMostCallsEndsAreWorkOutsideTiming) {
  const auto findings = judge_journal(dir, late_journal(20, [](int c) { return c < 15 ? 400.0 : -5.0; }), 20);
  if (!findings) GTEST_SKIP() << "kaudit built without the trace model";
  ASSERT_EQ(ids(*findings), (std::set<std::string>{"gpu-work-outside-timing"}));
  EXPECT_NE(findings->front().message.find("15 of 20 timed calls"), std::string::npos) << findings->front().message;
}

// Many tiny kernels just past the end do not dilute one that runs on long
// after it: the call is judged by the last of its work.
TEST_F(TraceSummary, TinyKernelsJustPastTheEndDoNotHideOneRunningLongAfter) {
  const auto findings = judge_journal(dir, late_journal(20, [](int c) { return c < 15 ? 400.0 : -5.0; }, 50), 20);
  if (!findings) GTEST_SKIP() << "kaudit built without the trace model";
  EXPECT_EQ(ids(*findings), (std::set<std::string>{"gpu-work-outside-timing"}));
  // The tiny ones alone, in every call, are the clocks.
  const auto tiny_only = judge_journal(dir, late_journal(20, [](int) { return -5.0; }, 50), 20);
  ASSERT_TRUE(tiny_only);
  EXPECT_EQ(ids(*tiny_only), (std::set<std::string>{}));
}
