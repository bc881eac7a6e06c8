// Speed of the trace side of a run (runner/judge/trace_summary.h) on a submission
// that launches many small kernels per call, as PyTorch-op code does: a
// journal shaped like kda's chunked-torch cheat on the H200 (about 1.1
// million kernels in 480 calls), its lines as the tracer writes them: each
// runtime launch with its nested driver launch, 40 kernel names with their
// demangled forms. Read, summarised (with kda's rule pack, whose banned
// kernel patterns every timed library kernel is checked against) and
// exported (docs/performance.md); the journal's reading alone is timed too.
// Run by hand:
//   build/tests/bench/trace_summary_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
#include "runner/judge/trace_summary.h"
#include "rules/rule_pack.h"
#include "tracer/trace.h"

#include <benchmark/benchmark.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

namespace {

namespace fs = std::filesystem;

constexpr int kCalls = 480, kKernelsPerCall = 2300, kNames = 40;

fs::path make_journal() {
  const fs::path dir = fs::temp_directory_path() / ("kaudit-trace-bench-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream out(dir / "kaudit-trace.77.jsonl");
  out << R"({"type":"process","schema":"kaudit-trace-journal/1","pid":77,"ppid":1,"exe":"python3","argv":["python3"]})"
      << "\n"
      << R"({"type":"cupti","api_version":130001,"compiled_api_version":130001,"driver_version":13000,"subscribed":true})"
      << "\n"
      << R"({"type":"launcher","id":1,"api":"cudaLaunchKernel","object":"/site-packages/torch/lib/libtorch_cuda.so","symbol":"","how":"stack","chain":[]})"
      << "\n"
      << R"({"type":"launcher","id":2,"api":"cuLaunchKernel","object":"/usr/lib/libcudart.so.13","symbol":"","how":"stack","chain":[]})"
      << "\n";
  std::string kernels;
  uint64_t ts = 1'796'256'373'221'050'363, corr = 1;
  const char* phases[] = {"correctness", "warmup", "timed"};
  std::map<std::string, int> index;  // each call's index in its phase, shape and mode, as the harness counts
  for (int c = 1; c <= kCalls; ++c) {
    const char* phase = phases[c <= 30 ? 0 : c <= 60 ? 1 : 2];
    const char* mode = c <= 30 ? "" : (c % 3 == 0 ? "bench" : c % 3 == 1 ? "fresh" : "rewrite");
    out << R"({"type":"call_begin","call":)" << c << R"(,"phase":")" << phase << R"(","shape":")" << c % 3
        << R"(","mode":")" << mode << R"(","index":)" << index[std::string(phase) + char('0' + c % 3) + mode]++
        << R"(,"ts":)" << ts << R"(,"tid":5199})" << "\n";
    for (int k = 0; k < kKernelsPerCall; ++k, ++corr, ts += 3000) {
      out << R"({"type":"launch","corr":)" << corr << R"(,"api":"cuLaunchKernel","tid":5199,"enter":)" << ts + 1000
          << R"(,"exit":)" << ts + 1900 << R"(,"parent":)" << corr << R"(,"launcher":2,"call":)" << c << "}\n";
      out << R"({"type":"launch","corr":)" << corr << R"(,"api":"cudaLaunchKernel","tid":5199,"enter":)" << ts + 900
          << R"(,"exit":)" << ts + 2000 << R"(,"launcher":1,"call":)" << c << "}\n";
      const std::string n = std::to_string(k % kNames);
      kernels += R"({"type":"kernel","corr":)" + std::to_string(corr) +
                 R"(,"name":"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctor)" + n +
                 R"J(EEEviT0_T1_","grid":[8,1,1],"block":[128,1,1],"cluster":[0,0,0],"regs":32,"smem_static":0,"smem_dynamic":0,"local_per_thread":0,"device":0,"context":1,"stream":7,"graph":0,"graph_node":0,"start":)J" +
                 std::to_string(ts + 2500) + R"(,"end":)" + std::to_string(ts + 2900) +
                 R"(,"demangled":"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor)" + n +
                 R"J(>(int, at::native::FillFunctor, std::array<char*, 1ul>)"})J" + "\n";
    }
    out << R"({"type":"call_end","call":)" << c << R"(,"ts":)" << ts << "}\n";
    ts += 100000;
    // CUPTI delivers kernel records in buffers, after the calls that made them.
    if (c % 20 == 0) {
      out << kernels;
      kernels.clear();
    }
  }
  out << kernels << R"({"type":"end","reason":"finish","dropped":0,"launches":)" << 2 * (corr - 1) << "}\n";
  return dir;
}

// The journal is made once and shared by the benchmarks; removed at exit.
const fs::path& journal_dir() {
  static const struct Journal {
    fs::path dir = make_journal();
    ~Journal() { fs::remove_all(dir); }
  } journal;
  return journal.dir;
}

// Reading the journal alone: the part every run pays, export or not.
void BM_LoadJournal(benchmark::State& state) {
  const std::string dir = journal_dir().string();
  for (auto _ : state) benchmark::DoNotOptimize(kaudit::tracer::load_journal_dir(dir));
  state.counters["kernels"] = static_cast<double>(kCalls) * kKernelsPerCall;
}
BENCHMARK(BM_LoadJournal)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

// Read, summarised and, with an argument of 1, exported as trace.json and
// trace.chrome.json (what `--trace-output` adds).
void BM_SummarizeTrace(benchmark::State& state) {
  const bool exporting = state.range(0) != 0;
  const fs::path exported = journal_dir() / "export";
  const kaudit::rules::RulePack pack = kaudit::rules::load_rule_pack(KAUDIT_KDA_PACK);
  for (auto _ : state) {
    std::vector<kaudit::rules::Finding> findings;
    const auto doc = kaudit::run::summarize_trace(journal_dir(), 77, "solution.py", findings, &pack,
                                                  exporting ? exported : fs::path());
    benchmark::DoNotOptimize(doc);
  }
  state.counters["kernels"] = static_cast<double>(kCalls) * kKernelsPerCall;
}
BENCHMARK(BM_SummarizeTrace)->ArgName("export")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
