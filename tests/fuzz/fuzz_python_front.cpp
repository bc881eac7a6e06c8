// libFuzzer target: the Python front and every check, over any bytes as a
// .py file (the Clang front left out: embedded C++/CUDA strings are still
// found and mapped, not compiled), then the findings in every output format
// (a message quoting the source must stay valid UTF-8). The analyzer must
// never crash, hang or trip a sanitizer, whatever the file holds.
#include "analyzer/analyzer.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace {

const kaudit::analyzer::Analyzer& analyzer() {
  static const kaudit::analyzer::Analyzer a = [] {
    kaudit::analyzer::AnalyzerOptions o;
    o.read_cxx = false;
    return kaudit::analyzer::Analyzer(std::move(o));
  }();
  return a;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  using namespace kaudit::analyzer;
  SubmissionFacts facts;
  FileReport report;
  report.path = "fuzz.py";
  report.findings = analyzer().analyze_text(report.path, std::move(text), &facts);
  report.gpu_toolchains = facts.gpu_toolchains;
  const std::vector<FileReport> files{report};
  (void)render_text(files);
  (void)render_json(files, ReportHeader{"default", ""}).dump();
  (void)render_sarif(files, ReportHeader{"default", ""}).dump();
  return 0;
}
