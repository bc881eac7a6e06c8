// Hostile or broken input: never a crash or a hang; a finding that says what
// could not be analysed, and the rest still analysed.
#include "analyzer/analyzer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
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

// Findings quote source (`exec("...")`, a compared size); a quote cut short
// must not split a character, or the JSON and SARIF writers throw. Every cut
// offset lands inside a 2-, 3- and 4-byte character for some shift.
TEST(BadInput, QuotedSourceCutShortStaysValidUtf8) {
  size_t quoted = 0;
  for (const std::string ch : {"\xc3\xa9", "\xe4\xb8\xad", "\xf0\x9f\x98\x80"})
    for (size_t shift = 0; shift < 4; ++shift) {
      std::string run;
      for (int i = 0; i < 80; ++i) run += ch;
      const std::string pad(shift, 'a');
      const std::string py = "import torch\nexec(\"" + pad + run + "\")\nopen(\"" + pad + run + "\")\n";
      const std::string cu = "#include <torch/extension.h>\ntorch::Tensor run(torch::Tensor x) {\n  TORCH_CHECK(x /* " +
                             pad + run + " */ .size(1) == 11008, \"h\");\n  return x;\n}\n";
      std::vector<analyzer::FileReport> files(2);
      files[0].path = "quoted.py";
      files[0].findings = shared_analyzer().analyze_text(files[0].path, py);
      files[1].path = "quoted.cu";
      files[1].findings = shared_analyzer().analyze_text(files[1].path, cu);
      for (const auto& file : files)
        for (const auto& f : file.findings) quoted += f.message.find(pad + ch) != std::string::npos;
      EXPECT_NO_THROW((void)analyzer::render_json(files, {"default", ""}).dump()) << "shift " << shift;
      EXPECT_NO_THROW((void)analyzer::render_sarif(files, {"default", ""}).dump()) << "shift " << shift;
    }
  EXPECT_GE(quoted, 12u * 2) << "findings quote the long text (exec, open and the compared size)";
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

// ---- Sizes past any fixed-width counter -------------------------------------
// Files made at test time (none is committed): many lines, many tokens on one
// line, many children of one node, deep nesting. The runtime once kept a
// node's child count in 16 bits: 65,536 comment lines in a row freed the
// wrong pointer. Each file ends with kBannedTail, which must still be found.

std::string repeat(const std::string& s, size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

int lines_in(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

struct SizeCase {
  const char* name;
  std::function<std::string()> prefix;  // what stands before kBannedTail
  // False where the grammar cannot follow the input (f-strings nested past
  // the scanner's 255 open strings, which Python rejects too): the rest is a
  // syntax error, reported, not a crash.
  bool tail_parses = true;
};

// More than 2^16 of whatever is counted.
constexpr size_t kMany = 70000;
// Nesting: far deeper than any recursion on the call stack could go.
constexpr size_t kDeep = 100000;

const SizeCase kSizeCases[] = {
    {"CommentLinesFirst", [] { return repeat("# c\n", kMany); }},
    {"CommentLinesBetweenStatements", [] { return "import os\n" + repeat("# c\n", kMany) + "x = 1\n"; }},
    {"CommentLinesInsideBrackets", [] { return "x = [\n" + repeat("# c\n", kMany) + "]\n"; }},
    {"CommentLinesInsideADef", [] { return "def f():\n    x = 1\n" + repeat("    # c\n", kMany) + "    return x\n"; }},
    {"CommentLinesLast", [] { return "x = 1\n" + repeat("# c\n", kMany); }},
    {"LineContinuations", [] { return "x = 1 " + repeat("\\\n", kMany) + "\n"; }},
    {"BlankLines", [] { return repeat("\n", kMany); }},
    {"Statements", [] { return repeat("x = 1\n", kMany); }},
    {"StatementsOnOneLine", [] { return repeat("x = 1; ", kMany) + "\n"; }},
    {"DefsInAClass", [] { return "class C:\n" + repeat("    def f(self): pass\n", kMany / 4); }},
    {"LongLineOfTokens", [] { return "x = [" + repeat("1, ", kMany) + "]\n"; }},
    {"LongLineOfOneToken", [] { return "x = 'a" + std::string(4 << 20, 'a') + "'\n"; }},
    {"LongCommentLine", [] { return "# " + std::string(4 << 20, 'c') + "\n"; }},
    {"ArgumentsOfOneCall", [] { return "f(" + repeat("1, ", kMany) + ")\n"; }},
    {"ClosingBracketsAlone", [] { return repeat(")", kMany) + "\n"; }},
    {"NestedParentheses", [] { return "x = " + repeat("(", kDeep) + "1" + repeat(")", kDeep) + "\n"; }},
    {"NestedLists", [] { return "x = " + repeat("[", kDeep) + "1" + repeat("]", kDeep) + "\n"; }},
    {"NestedTuples", [] { return "x = " + repeat("(1, ", kDeep) + repeat(")", kDeep) + "\n"; }},
    {"NestedDicts", [] { return "x = " + repeat("{1: ", kDeep) + "1" + repeat("}", kDeep) + "\n"; }},
    {"NestedCalls", [] { return "x = " + repeat("f(", kDeep) + "1" + repeat(")", kDeep) + "\n"; }},
    {"NestedSubscripts", [] { return "x = a" + repeat("[0]", kDeep) + "\n"; }},
    {"NestedUnary", [] { return "x = " + repeat("-", kDeep) + "1\n"; }},
    {"NestedNot", [] { return "x = " + repeat("not ", kDeep) + "y\n"; }},
    {"NestedLambdas", [] { return "x = " + repeat("lambda: ", kDeep) + "1\n"; }},
    {"NestedConditionals", [] { return "x = " + repeat("1 if y else ", kDeep) + "1\n"; }},
    {"NestedFStrings", [] { return "x = " + repeat("f\"{", kDeep) + "1" + repeat("}\"", kDeep) + "\n"; }, false},
    {"LongAttributeChain", [] { return "x = a" + repeat(".b", kDeep) + "\n"; }},
    {"LongStringSumChain", [] { return "x = 'a'" + repeat(" + 'a'", kDeep) + "\n"; }},
    {"LongPathDivisionChain", [] { return "open('a'" + repeat(" / 'a'", kDeep) + ")\n"; }},
    {"GetattrOfDeepConcatenation",
     [] { return "f = getattr(torch, " + repeat("(", kDeep) + "'mat'" + repeat(" + '')", kDeep) + " + 'mul')\n"; }},
    {"LongSumChain", [] { return "x = 1" + repeat(" + 1", kDeep) + "\n"; }},
    {"LongPowerChain", [] { return "x = 2" + repeat(" ** 2", kDeep) + "\n"; }},
    {"LongComparisonChain", [] { return "x = 1" + repeat(" < 1", kDeep) + "\n"; }},
    {"NestedShapeTuple",
     [] { return "def forward(self, x):\n    assert x.shape == " + repeat("(", kDeep) + "4096" + repeat(")", kDeep) + "\n"; }},
    {"NestedPathJoin",
     [] { return "import os\nopen(" + repeat("os.path.join(", kDeep) + "'a'" + repeat(")", kDeep) + ")\n"; }},
    // Values followed through their function (issue 16): each check follows a
    // bounded number per file, so these stay linear.
    {"BannedCallsUnderSwitches",
     [] {
       return "import os\nimport torch\nT = os.environ.get('T', '0') == '1'\ndef f(a, b):\n" +
              repeat("    if T:\n        w = torch.matmul(a, b)\n        ok = torch.allclose(w, a)\n", kMany / 10);
     }},
    {"EnvironmentReads",
     [] { return "import os\ndef f():\n" + repeat("    v = int(os.environ.get('V', '4'))\n    if v:\n        g()\n", kMany / 10); }},
    {"HarnessImports", [] { return "def f():\n" + repeat("    import reference\n    x = reference.T\n", kMany / 10); }},
    {"CachesInHelpers",
     [] {
       std::string s = "import torch\nclass Model(torch.nn.Module):\n    def forward(self, x):\n        return self.h0(x)\n";
       for (size_t i = 0; i < 2000; ++i)
         s += "    def h" + std::to_string(i) + "(self, x):\n        k = x.data_ptr()\n        if k in self.c:\n"
              "            return self.c[k]\n        return x\n";
       return s;
     }},
    {"DeepIndentation",
     [] {
       std::string s;
       for (size_t i = 0; i < 3000; ++i) s += std::string(i, ' ') + "if x:\n";
       return s + std::string(3000, ' ') + "pass\n";
     }},
};

void PrintTo(const SizeCase& c, std::ostream* os) { *os << c.name; }

class Sizes : public ::testing::TestWithParam<SizeCase> {};

TEST_P(Sizes, NoCrashAndTheRestIsAnalysed) {
  const std::string prefix = GetParam().prefix();
  const auto f = shared_analyzer().analyze_text("sizes.py", prefix + kBannedTail);
  if (GetParam().tail_parses)
    EXPECT_TRUE(has_at(f, "banned-call", lines_in(prefix) + 4)) << "the banned call after the " << GetParam().name;
  else
    EXPECT_GE(count(f, "analysis-incomplete"), 1u);
}

INSTANTIATE_TEST_SUITE_P(BadInput, Sizes, ::testing::ValuesIn(kSizeCases),
                         [](const auto& p) { return std::string(p.param.name); });

}  // namespace
