// Hostile or broken input: never a crash or a hang; a finding that says what
// could not be analysed, and the rest still analysed.
#include "analyzer/analyzer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace kaudit;
using analyzer::Analyzer;
using analyzer::AnalyzerOptions;

namespace {

const Analyzer& shared_analyzer() {
  static Analyzer a{AnalyzerOptions{}};
  return a;
}

size_t count(const std::vector<rules::Finding>& fs, const std::string& id) {
  return std::count_if(fs.begin(), fs.end(), [&](const rules::Finding& f) { return f.id == id; });
}

bool has_at(const std::vector<rules::Finding>& fs, const std::string& id, int line) {
  return std::any_of(fs.begin(), fs.end(), [&](const auto& f) { return f.id == id && f.location.line == line; });
}

// A banned call the analyzer must still find whatever else is in the file.
const std::string kBannedTail = "\nimport torch\ndef forward(a, b):\n    return torch.matmul(a, b)\n";

fs::path temp_file(const std::string& name, const std::string& bytes) {
  const fs::path dir = fs::temp_directory_path() / ("kaudit_bad_input_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path p = dir / name;
  std::ofstream(p, std::ios::binary) << bytes;
  return p;
}

TEST(BadInput, InvalidUtf8IsReplacedAndTheRestAnalysed) {
  const std::string text = "# caf\xe9 \xff\xfe\n" + kBannedTail;
  const auto f = shared_analyzer().analyze_text("latin1.py", text);
  EXPECT_GE(count(f, "analysis-incomplete"), 1u);
  EXPECT_TRUE(has_at(f, "banned-call", 5));
}

TEST(BadInput, BinaryFileIsReportedNotParsed) {
  std::string bytes = "\x7f" "ELF";
  bytes += std::string(64, '\0');
  const auto f = shared_analyzer().analyze_file(temp_file("blob.py", bytes));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "analysis-incomplete");
  EXPECT_NE(f[0].message.find("binary"), std::string::npos);
}

TEST(BadInput, MissingFileIsReported) {
  const auto f = shared_analyzer().analyze_file("/nonexistent/solution.py");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "analysis-incomplete");
}

TEST(BadInput, SyntaxErrorStillAnalysesTheRest) {
  const std::string text = "def broken(:\n    pass\n" + kBannedTail;
  const auto f = shared_analyzer().analyze_text("syntax.py", text);
  EXPECT_TRUE(has_at(f, "analysis-incomplete", 1));
  EXPECT_TRUE(has_at(f, "banned-call", 6));
}

TEST(BadInput, UnterminatedStringDoesNotHang) {
  const std::string text = kBannedTail + "x = '''never closed\n" + std::string(10000, 'a');
  const auto f = shared_analyzer().analyze_text("unterminated.py", text);
  EXPECT_GE(count(f, "analysis-incomplete"), 1u);
}

TEST(BadInput, TenThousandNestedParentheses) {
  const std::string text = "x = " + std::string(10000, '(') + "1" + std::string(10000, ')') + "\n" + kBannedTail;
  const auto f = shared_analyzer().analyze_text("nested.py", text);
  EXPECT_TRUE(has_at(f, "banned-call", 5));
}

TEST(BadInput, DeeplyNestedConcatenationFolds) {
  std::string expr = "'mat'";
  for (int i = 0; i < 5000; ++i) expr = "(" + expr + " + '')";
  const std::string text = "import torch\nf = getattr(torch, " + expr + " + 'mul')\nf(1, 2)\n";
  const auto f = shared_analyzer().analyze_text("fold.py", text);
  SUCCEED();  // the point is finishing; whether it folds that deep is the front's choice
}

TEST(BadInput, TenMegabyteFile) {
  std::string text;
  text.reserve(10 << 20);
  while (text.size() < (10u << 20)) text += "value_" + std::to_string(text.size()) + " = [1, 2, 3]  # padding\n";
  text += kBannedTail;
  const auto f = shared_analyzer().analyze_text("huge.py", text);
  EXPECT_GE(count(f, "banned-call"), 1u);
}

TEST(BadInput, EmbeddedCudaThatDoesNotCompileOrIncludesMissingHeaders) {
  const std::string text =
      "import torch\n"
      "from torch.utils.cpp_extension import load_inline\n"
      "src = '''\n"
      "#include <no_such_header_anywhere.h>\n"
      "__global__ void k(float* x) { x[threadIdx.x] = undeclared_thing; }\n"
      "void launch(float* x) { cublasSgemm(0, 0, 0, 1, 1, 1, 0, 0, 1, 0, 1, 0, 0, 1); }\n"
      "'''\n"
      "mod = load_inline(name='m', cpp_sources='', cuda_sources=src, functions=['launch'])\n";
  const auto f = shared_analyzer().analyze_text("broken_cuda.py", text);
  EXPECT_GE(count(f, "analysis-incomplete"), 1u);
  EXPECT_TRUE(has_at(f, "analysis-incomplete", 4)) << "the missing header is named at its line";
}

}  // namespace
