// Speed of the trace side of a run (runner/trace_summary.h) on a submission
// that launches many small kernels per call, as PyTorch-op code does: a
// journal of 400 calls with 1,500 kernels each (600,000 kernels), read,
// summarised and exported (docs/performance.md). Run by hand:
//   build/tests/bench/trace_summary_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
#include "runner/trace_summary.h"

#include <benchmark/benchmark.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace {

namespace fs = std::filesystem;

constexpr int kCalls = 400, kKernelsPerCall = 1500;

fs::path make_journal() {
  const fs::path dir = fs::temp_directory_path() / ("kaudit-trace-bench-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream out(dir / "kaudit-trace.77.jsonl");
  out << R"({"type":"process","schema":"kaudit-trace-journal/1","pid":77,"ppid":1,"exe":"python3","argv":["python3"]})"
      << "\n"
      << R"({"type":"cupti","api_version":130001,"compiled_api_version":130001,"driver_version":13000,"subscribed":true})"
      << "\n"
      << R"({"type":"launcher","id":1,"api":"cudaLaunchKernel","object":"/site-packages/torch/lib/libtorch_cuda.so","symbol":"","how":"stack","chain":[]})"
      << "\n";
  std::string kernels;
  uint64_t ts = 1'000'000, corr = 1;
  for (int c = 1; c <= kCalls; ++c) {
    const bool timed = c > 100;
    out << R"({"type":"call_begin","call":)" << c << R"(,"phase":")" << (timed ? "timed" : "correctness")
        << R"(","shape":")" << c % 3 << R"(","mode":")" << (timed ? "bench" : "") << R"(","index":)" << c
        << R"(,"ts":)" << ts << R"(,"tid":7})" << "\n";
    for (int k = 0; k < kKernelsPerCall; ++k, ++corr, ts += 30) {
      out << R"({"type":"launch","corr":)" << corr << R"(,"api":"cudaLaunchKernel","tid":7,"enter":)" << ts + 10
          << R"(,"exit":)" << ts + 12 << R"(,"launcher":1,"call":)" << c << "}\n";
      kernels += R"({"type":"kernel","corr":)" + std::to_string(corr) +
                 R"J(,"name":"void at::native::elementwise_kernel<128, 4>(int)","grid":[8,1,1],"block":[128,1,1],"cluster":[0,0,0],"regs":32,"smem_static":0,"smem_dynamic":0,"device":0,"context":1,"stream":7,"graph":0,"graph_node":0,"start":)J" +
                 std::to_string(ts + 20) + R"(,"end":)" + std::to_string(ts + 25) + "}\n";
    }
    out << R"({"type":"call_end","call":)" << c << R"(,"ts":)" << ts << "}\n";
    ts += 1000;
  }
  out << kernels << R"({"type":"end","reason":"exit","dropped":0,"launches":)" << corr - 1 << "}\n";
  return dir;
}

void BM_SummarizeAndExportTrace(benchmark::State& state) {
  const fs::path dir = make_journal();
  const fs::path exported = dir / "export";
  for (auto _ : state) {
    std::vector<kaudit::rules::Finding> findings;
    const auto doc = kaudit::runner::summarize_trace(dir, 77, "solution.py", findings, nullptr, exported);
    benchmark::DoNotOptimize(doc);
  }
  state.counters["kernels"] = kCalls * kKernelsPerCall;
  fs::remove_all(dir);
}
BENCHMARK(BM_SummarizeAndExportTrace)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
