// Speed of the analyzer (docs/performance.md): a pure-Python Triton
// solution (target: at most 20 ms) and a ~300-line load_inline solution
// with ~150 lines of embedded CUDA (target: at most 1.0 s), end to end and
// broken down into the Python front, the C++ front and the checks.
#include "analyzer/analyzer.h"
#include "analyzer/checks/registry.h"
#include "analyzer/cxx/front.h"
#include "analyzer/python/module.h"

#include <benchmark/benchmark.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace {

using namespace kaudit::analyzer;

std::string read_input(const char* name) {
  std::ifstream in(std::string(KAUDIT_BENCH_INPUTS) + "/" + name);
  if (!in) throw std::runtime_error(std::string("missing benchmark input ") + name);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

SourceFile python_file(const char* name) {
  SourceFile f;
  f.path = name;
  f.language = Language::python;
  f.text = read_input(name);
  return f;
}

void BM_AnalyzeTritonSolution(benchmark::State& state) {
  Analyzer analyzer{AnalyzerOptions{}};
  const std::string text = read_input("triton_softmax_topk.py");
  for (auto _ : state) benchmark::DoNotOptimize(analyzer.analyze_text("triton_softmax_topk.py", text));
}

void BM_AnalyzeLoadInlineSolution(benchmark::State& state) {
  Analyzer analyzer{AnalyzerOptions{}};
  const std::string text = read_input("load_inline_gemm.py");
  for (auto _ : state) benchmark::DoNotOptimize(analyzer.analyze_text("load_inline_gemm.py", text));
}

void BM_PythonFrontOnly(benchmark::State& state) {
  const SourceFile f = python_file("load_inline_gemm.py");
  for (auto _ : state) {
    auto m = python::Module::parse(f);
    benchmark::DoNotOptimize(m->calls().size());
  }
}

void BM_CxxFrontOnly(benchmark::State& state) {
  auto m = python::Module::parse(python_file("load_inline_gemm.py"));
  if (m->embedded_sources().empty()) {
    state.SkipWithError("no embedded source found");
    return;
  }
  for (auto _ : state)
    for (const auto& e : m->embedded_sources()) benchmark::DoNotOptimize(cxx::read_facts(e.file).calls.size());
}

}  // namespace

BENCHMARK(BM_AnalyzeTritonSolution)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_AnalyzeLoadInlineSolution)->Unit(benchmark::kMillisecond)->Iterations(10);
BENCHMARK(BM_PythonFrontOnly)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_CxxFrontOnly)->Unit(benchmark::kMillisecond)->Iterations(10);
BENCHMARK_MAIN();
