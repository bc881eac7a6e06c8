// The batch reports on the fixture batches (fixtures/make_fixtures.py): every
// file may be missing or malformed, every string may be hostile.
#include "report/report.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

using namespace kaudit::report;
namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A writable copy of a fixture batch, rendered from the repository root
// (where the submissions' relative source paths resolve).
struct Rendered {
  fs::path dir;  // removed once read
  std::string md, html;
  bool wrote_md = false, wrote_html = false, left_tmp = false;
};

Rendered render(const std::string& fixture) {
  fs::current_path(KAUDIT_SOURCE_DIR);
  Rendered r;
  r.dir = fs::temp_directory_path() / ("kaudit_report_test_" + fixture + "_" + std::to_string(::getpid()));
  fs::remove_all(r.dir);
  fs::copy(fs::path(KAUDIT_REPORT_FIXTURES) / fixture, r.dir, fs::copy_options::recursive);
  write_reports(r.dir);
  r.wrote_md = fs::is_regular_file(r.dir / "report.md");
  r.wrote_html = fs::is_regular_file(r.dir / "report.html");
  r.left_tmp = fs::exists(r.dir / "report.html.tmp") || fs::exists(r.dir / "report.md.tmp");
  r.md = slurp(r.dir / "report.md");
  r.html = slurp(r.dir / "report.html");
  fs::remove_all(r.dir);
  return r;
}

const Rendered& batch() {
  static const Rendered r = render("batch");
  return r;
}

// The text of one submission's section of the HTML page.
std::string page_of(const std::string& html, const std::string& anchor) {
  const auto start = html.find("<section class=\"page\" id=\"" + anchor + "\">");
  if (start == std::string::npos) return "";
  return html.substr(start, html.find("</section>", start) - start);
}

}  // namespace

TEST(Report, WritesBothFilesForTheFixtureBatch) {
  const auto& r = batch();
  EXPECT_TRUE(r.wrote_md);
  EXPECT_TRUE(r.wrote_html);
  EXPECT_FALSE(r.left_tmp);
  EXPECT_EQ(r.html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(r.html.find("</html>"), std::string::npos);
}

TEST(Report, BoardCountsAndRanksByProblem) {
  const Batch b = [] {
    fs::current_path(KAUDIT_SOURCE_DIR);
    return load_batch(fs::path(KAUDIT_REPORT_FIXTURES) / "batch");
  }();
  const Counts c = count_verdicts(b);
  EXPECT_EQ(c.clean, 1);
  EXPECT_EQ(c.benchmark_aware, 1);
  EXPECT_EQ(c.cheat, 4);
  EXPECT_EQ(c.not_run, 4) << "not-run, unverified, missing folder, and an unknown integrity are never clean";
  const auto groups = by_problem(b);
  ASSERT_FALSE(groups.empty());
  for (const auto& [problem, list] : groups)
    if (problem == "topk") {
      ASSERT_EQ(list.size(), 3u);
      EXPECT_EQ(list[0]->key, "topk__clean_two_stage_select")
          << "ranked by fresh % of peak: the cache that wins on bench does not win here";
    }
  const auto& r = batch();
  EXPECT_NE(r.html.find("<div class=\"n\">4</div><div class=\"l\">cheat</div>"), std::string::npos);
  EXPECT_NE(r.md.find("| 1 | 1 | 4 | 4 |"), std::string::npos);
  EXPECT_NE(r.html.find("href=\"#s-topk-clean-two-stage-select\""), std::string::npos);
}

// A static lead the run did not confirm is on the board, in a column of its
// own, and a clean page says why the lead did not decide (issue 18, item 7).
TEST(Report, UnconfirmedStaticLeadsAreOnTheBoardAndExplainedOnACleanPage) {
  const auto& r = batch();
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.md, m, std::regex(R"(\(#s-topk-clean-two-stage-select\)[^\n]*)")));
  EXPECT_NE(m[0].str().find("| shape-hardcoded |"), std::string::npos) << m[0].str();
  EXPECT_NE(r.md.find("| decided by | not confirmed at run time |"), std::string::npos);
  EXPECT_NE(r.html.find("<th>not confirmed at run time</th>"), std::string::npos);
  EXPECT_NE(r.html.find("<td class=\"ids lead\">shape-hardcoded</td>"), std::string::npos);
  // An id that also decides is not repeated as unconfirmed.
  ASSERT_TRUE(std::regex_search(r.md, m, std::regex(R"(\(#s-w4a16-gemm-cheat-getattr-folded-matmul\)[^\n]*)")));
  const std::string row = m[0].str(), last = "| – |";
  EXPECT_EQ(row.substr(row.size() - last.size()), last) << row;
  const std::string page = page_of(r.html, "s-topk-clean-two-stage-select");
  EXPECT_NE(page.find("not confirmed at run time: shape-hardcoded"), std::string::npos) << page.substr(0, 1500);
  EXPECT_NE(r.md.find("not confirmed at run time: shape-hardcoded"), std::string::npos);
}

TEST(Report, CheatPageLinksEachReasonToItsEvidence) {
  const std::string page = page_of(batch().html, "s-topk-cheat-cache-data-ptr");
  ASSERT_FALSE(page.empty());
  // The static finding: its card holds the source lines, line 67 marked.
  EXPECT_NE(page.find("href=\"#s-topk-cheat-cache-data-ptr-d1\">source line 67</a>"), std::string::npos);
  EXPECT_NE(page.find("id=\"s-topk-cheat-cache-data-ptr-d1\""), std::string::npos);
  std::smatch m;
  const std::regex hit(R"re(<tr class="hit"><td class="ln">67</td><td>([^<]*)</td>)re");
  ASSERT_TRUE(std::regex_search(page, m, hit));
  EXPECT_NE(m[1].str().find("x.data_ptr()"), std::string::npos);
  // Probe, trace and timing findings point at the plot and the kernels.
  EXPECT_NE(page.find("href=\"#s-topk-cheat-cache-data-ptr-timing\""), std::string::npos);
  EXPECT_NE(page.find("href=\"#s-topk-cheat-cache-data-ptr-kernels\""), std::string::npos);
  EXPECT_NE(page.find("id=\"s-topk-cheat-cache-data-ptr-timing\""), std::string::npos);
  EXPECT_NE(page.find("<svg class=\"plot\""), std::string::npos);
  EXPECT_NE(page.find("<tr class=\"bad\">"), std::string::npos) << "fresh/bench far above the threshold";
  EXPECT_NE(page.find("8 of 8 values differ"), std::string::npos) << "the result's reason";
  EXPECT_NE(page.find("href=\"topk__cheat_cache_data_ptr/trace.chrome.json\""), std::string::npos);
  EXPECT_NE(page.find("ui.perfetto.dev"), std::string::npos);
}

TEST(Report, ProbesOfTheCorrectnessCallsLinkToTheCorrectnessTable) {
  const std::string page = page_of(batch().html, "s-w4a16-gemm-cheat-side-stream");
  ASSERT_FALSE(page.empty());
  EXPECT_NE(page.find("href=\"#s-w4a16-gemm-cheat-side-stream-correctness\">correctness per shape</a>"),
            std::string::npos);
  EXPECT_NE(page.find("id=\"s-w4a16-gemm-cheat-side-stream-correctness\""), std::string::npos);
  // Shape 0 ready, shape 1 unfinished (flagged); the skipped stress case counts in neither.
  EXPECT_NE(page.find("<td>ready</td>"), std::string::npos);
  EXPECT_NE(page.find("<td>1 of 1 unfinished</td>"), std::string::npos);
  EXPECT_NE(page.find("<td class=\"num\">3 of 3</td><td class=\"num\">1 of 1</td>"), std::string::npos);
  EXPECT_NE(page.find("<tr class=\"bad\"><td>1</td>"), std::string::npos);
  const std::string md = batch().md;
  EXPECT_NE(md.find("evidence: [correctness per shape](#s-w4a16-gemm-cheat-side-stream-correctness)"),
            std::string::npos);
  EXPECT_NE(md.find("| 1 | K=8192, M=256, N=8192 | passed | 3 of 3 | 1 of 1 | – | – | 1 of 1 unfinished |  |"),
            std::string::npos);
}

TEST(Report, LibraryKernelsAndTheirShareAreShown) {
  const std::string page = page_of(batch().html, "s-w4a16-gemm-cheat-getattr-folded-matmul");
  ASSERT_FALSE(page.empty());
  EXPECT_NE(page.find("<svg class=\"libbar\""), std::string::npos);
  EXPECT_NE(page.find("<b>cuBLASLt</b> (library)"), std::string::npos);
  EXPECT_NE(page.find("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopB_TNT"), std::string::npos);
  EXPECT_NE(page.find("libcublasLt.so.13"), std::string::npos) << "the launching library";
  EXPECT_NE(page.find("source line 9"), std::string::npos);
  const std::string md = batch().md;
  EXPECT_NE(md.find("| cuBLASLt | library |"), std::string::npos);
  EXPECT_NE(md.find("evidence: [kernels that ran](#s-w4a16-gemm-cheat-getattr-folded-matmul-kernels)"),
            std::string::npos);
  EXPECT_NE(md.find("<a id=\"s-w4a16-gemm-cheat-getattr-folded-matmul-kernels\"></a>"), std::string::npos);
  EXPECT_NE(md.find("→  9 | _product = getattr(torch, _OP)"), std::string::npos) << "source in a code block";
}

// The own kernels' share of the graded calls per shape (the fig-leaf rule's
// figure) and each shape's first call (where lazy builds happen).
TEST(Report, AuthoredSharePerShapeAndFirstCallsAreShown) {
  const std::string page = page_of(batch().html, "s-w4a16-gemm-cheat-getattr-folded-matmul");
  ASSERT_FALSE(page.empty());
  EXPECT_NE(page.find("GPU time (copies and casts left out): shape 0: 9.09%, shape 1: 9.09%."), std::string::npos)
      << page.substr(0, 4000);
  EXPECT_NE(page.find("never timed): shape 0: 74.2 s, shape 1: 1.5 s."), std::string::npos);
  EXPECT_NE(batch().md.find("GPU time (copies and casts left out): shape 0: 9.09%, shape 1: 9.09%."), std::string::npos);
}

TEST(Report, NotRunAndMissingFilesAreSaidNotHidden) {
  const auto& r = batch();
  const std::string not_run = page_of(r.html, "s-moe-swiglu-clean-triton-grouped");
  ASSERT_FALSE(not_run.empty());
  EXPECT_NE(not_run.find("Not clean."), std::string::npos);
  EXPECT_NE(not_run.find("run.json is missing"), std::string::npos);
  EXPECT_NE(not_run.find("its source file was not found"), std::string::npos);
  EXPECT_NE(not_run.find("No timing: no run document"), std::string::npos);

  const std::string partial = page_of(r.html, "s-kda-chunked-partial");
  EXPECT_NE(partial.find("verdict.json is not a readable JSON object"), std::string::npos);
  EXPECT_NE(partial.find("trace.json is missing"), std::string::npos);
  EXPECT_NE(partial.find("<span class=\"res error\">error</span>"), std::string::npos);
  EXPECT_NE(partial.find("timed out after 300 s"), std::string::npos) << "reason from run.json";

  const std::string gone = page_of(r.html, "s-kda-chunked-folder-missing");
  EXPECT_NE(gone.find("its folder is missing from the batch"), std::string::npos);
  EXPECT_NE(r.md.find("its folder is missing from the batch"), std::string::npos);
}

TEST(Report, HostileStringsAreInert) {
  const auto& r = batch();
  for (const char* bad : {"<script", "<img", "<iframe", "<svg onload", "<b ", "<b>topk",
                          "javascript:alert(4))\"", "http://", "https://"})
    EXPECT_EQ(r.html.find(bad), std::string::npos) << bad;
  // Every link is a fragment or a relative path to a trace file; nothing loads.
  const std::regex attr(R"re(\b(href|src|action|srcset|data)\s*=\s*"([^"]*)")re");
  for (auto it = std::sregex_iterator(r.html.begin(), r.html.end(), attr); it != std::sregex_iterator(); ++it) {
    const std::string name = (*it)[1], value = (*it)[2];
    EXPECT_EQ(name, "href") << value;
    EXPECT_TRUE(value.rfind("#", 0) == 0 || std::regex_match(value, std::regex(R"([A-Za-z0-9%._~-]+/trace\.chrome\.json)")))
        << value;
  }
  EXPECT_NE(r.html.find("Content-Security-Policy"), std::string::npos);
  const std::string page = page_of(r.html, "s-topk-hostile");
  ASSERT_FALSE(page.empty());
  EXPECT_NE(page.find("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(page.find("<span class=\"ctl\">U+202E</span>"), std::string::npos) << "Trojan Source made visible";
  EXPECT_NE(page.find("\uFFFD\uFFFD bad bytes"), std::string::npos);
  // The key that names no plain folder is shown, escaped, and nothing is read for it.
  EXPECT_NE(r.html.find("its key is not a plain folder name"), std::string::npos);
  EXPECT_NE(r.html.find("../&lt;script&gt;alert(9)&lt;/script&gt;"), std::string::npos);

  // Outside code blocks (which a Markdown viewer shows as text) nothing is markup.
  std::string prose;
  bool in_code = false;
  std::istringstream lines(r.md);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("```", 0) == 0) in_code = !in_code;
    else if (!in_code) prose += line + "\n";
  }
  EXPECT_NE(r.md.find("# <script>alert(\"src\")"), std::string::npos) << "the hostile source line, in a code block";
  for (const char* bad : {"<script", "<img", "<iframe", "](javascript", "<b>"})
    EXPECT_EQ(prose.find(bad), std::string::npos) << bad;
  EXPECT_NE(r.md.find("\\[click\\]\\(javascript:alert\\(4\\)\\)"), std::string::npos);
}

TEST(Report, EmptyBatchRenders) {
  const Rendered r = render("empty");
  EXPECT_NE(r.html.find("0 submissions"), std::string::npos);
  EXPECT_NE(r.md.find("| 0 | 0 | 0 | 0 |"), std::string::npos);
}

TEST(Report, UnreadableSummaryThrows) {
  fs::current_path(KAUDIT_SOURCE_DIR);
  EXPECT_THROW(write_reports(fs::path(KAUDIT_REPORT_FIXTURES) / "broken"), std::runtime_error);
  EXPECT_THROW(write_reports(fs::path(KAUDIT_REPORT_FIXTURES) / "no-such-batch"), std::runtime_error);
  EXPECT_FALSE(fs::exists(fs::path(KAUDIT_REPORT_FIXTURES) / "broken" / "report.html"));
}
