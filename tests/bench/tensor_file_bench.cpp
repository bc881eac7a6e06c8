// Speed of the runner's tensor files (docs/performance.md): reading a
// 268 MB bfloat16 output (134M elements) from /dev/shm (or the temporary
// folder), comparing two such outputs with the default tolerance, and the
// paths the runner takes (read two files, then compare them or compare their
// bytes). Run by hand:
//   build/tests/bench/tensor_file_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include "runner/process/tensor_file.h"

#include <benchmark/benchmark.h>

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace kaudit::run;
namespace fs = std::filesystem;

constexpr std::size_t kElements = std::size_t{1} << 27;  // 134,217,728 bfloat16 = 268 MB

std::uint16_t bf16_of(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return static_cast<std::uint16_t>(u >> 16);
}

// Reference values in [-4, 4) and an output that differs from it by one
// bfloat16 step on every eighth element: all within the default tolerance,
// so the comparison scans every element, as it does for a correct submission.
struct Pair {
  TensorFile expected, actual;
};

const Pair& pair() {
  static const Pair p = [] {
    Pair q;
    for (TensorFile* t : {&q.expected, &q.actual}) {
      t->dtype = "bfloat16";
      t->shape = {static_cast<std::int64_t>(kElements / 4096), 4096};
      t->data.resize(kElements * 2);
    }
    std::uint32_t s = 12345;
    for (std::size_t i = 0; i < kElements; ++i) {
      s = s * 1664525u + 1013904223u;
      const float v = static_cast<float>(s >> 8) / static_cast<float>(1u << 24) * 8.0f - 4.0f;
      std::uint16_t e = bf16_of(v), a = e;
      if (i % 8 == 0 && (e & 0x7f80) != 0) a = static_cast<std::uint16_t>(e + 1);
      std::memcpy(q.expected.data.data() + 2 * i, &e, 2);
      std::memcpy(q.actual.data.data() + 2 * i, &a, 2);
    }
    return q;
  }();
  return p;
}

fs::path bench_dir() {
  const fs::path shm = "/dev/shm";
  std::error_code ec;
  return fs::is_directory(shm, ec) && access(shm.c_str(), W_OK) == 0 ? shm : fs::temp_directory_path();
}

void write_tensor(const fs::path& p, const TensorFile& t) {
  std::ofstream out(p, std::ios::binary);
  out << R"({"dtype": ")" << t.dtype << R"(", "shape": [)" << t.shape[0] << ", " << t.shape[1]
      << R"(], "nbytes": )" << t.data.size() << "}\n";
  out.write(reinterpret_cast<const char*>(t.data.data()), static_cast<std::streamsize>(t.data.size()));
  if (!out) throw std::runtime_error("cannot write " + p.string());
}

// The two files, written once per process and removed at exit.
struct Files {
  fs::path expected, actual;
  Files() {
    const std::string stem = "kaudit-tensor-bench-" + std::to_string(getpid());
    expected = bench_dir() / (stem + "-expected.bin");
    actual = bench_dir() / (stem + "-actual.bin");
    write_tensor(expected, pair().expected);
    write_tensor(actual, pair().actual);
  }
  ~Files() {
    std::error_code ec;
    fs::remove(expected, ec);
    fs::remove(actual, ec);
  }
};

const Files& files() {
  static const Files f;
  return f;
}

void BM_CompareBf16(benchmark::State& state) {
  const Pair& p = pair();
  for (auto _ : state) {
    const Comparison c = compare_tensors(p.actual, p.expected, Tolerance{});
    if (!c.ok) state.SkipWithError(c.reason.c_str());
    benchmark::DoNotOptimize(c.max_abs_error);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * 2 * p.expected.data.size()));
}

void BM_MaxAbsBf16(benchmark::State& state) {
  const Pair& p = pair();
  for (auto _ : state) benchmark::DoNotOptimize(p.expected.max_abs());
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * p.expected.data.size()));
}

void BM_ReadTensorFile(benchmark::State& state) {
  const Files& f = files();
  for (auto _ : state) {
    const TensorFile t = read_tensor_file(f.expected);
    benchmark::DoNotOptimize(t.numel());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * pair().expected.data.size()));
}

// The runner's path for outputs: read both, then compare.
void BM_ReadAndCompare(benchmark::State& state) {
  const Files& f = files();
  for (auto _ : state) {
    const Comparison c = compare_tensors(read_tensor_file(f.actual), read_tensor_file(f.expected), Tolerance{});
    if (!c.ok) state.SkipWithError(c.reason.c_str());
    benchmark::DoNotOptimize(c.max_abs_error);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * 2 * pair().expected.data.size()));
}

// The runner's path for inputs after a call: read both, then compare bytes
// (the same file twice, so every byte is compared).
void BM_ReadAndSameBytes(benchmark::State& state) {
  const Files& f = files();
  for (auto _ : state) {
    const bool same = same_bytes(read_tensor_file(f.expected), read_tensor_file(f.expected));
    if (!same) state.SkipWithError("bytes differ");
    benchmark::DoNotOptimize(same);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * 2 * pair().expected.data.size()));
}

}  // namespace

// Real time: the comparison of large tensors runs on several threads.
BENCHMARK(BM_CompareBf16)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_MaxAbsBf16)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ReadTensorFile)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ReadAndCompare)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ReadAndSameBytes)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_MAIN();
