// The SARIF writer both `kaudit analyze` and `kaudit audit` use
// (evidence/sarif.h): URIs, levels, help links and fingerprints.
#include "evidence/sarif.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>

namespace {

namespace fs = std::filesystem;
using kaudit::evidence::SarifStanding;
using kaudit::rules::Category;
using kaudit::rules::Confidence;
using nlohmann::json;

kaudit::rules::Finding finding(const std::string& id, const std::string& file, int line, const std::string& message,
                               Category c = Category::cheat, Confidence conf = Confidence::high) {
  kaudit::rules::Finding f;
  f.id = id;
  f.category = c;
  f.confidence = conf;
  f.location.file = file;
  f.location.line = line;
  f.message = message;
  return f;
}

class SarifFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("kaudit-sarif-" + std::to_string(::getpid()));
    fs::create_directories(root_ / "sub dir");
    std::ofstream(root_ / "sub dir" / "a%b #1.py") << "import torch\n\n    y = torch.matmul(a, b)  \nreturn y\n";
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
};

const kaudit::rules::FindingInfo kInfo{"banned-call", Category::cheat, Confidence::high, 1,
                                       "summary",     "explanation",   "confirm"};

json render(const fs::path& root, std::vector<kaudit::evidence::SarifResult> results) {
  kaudit::evidence::SarifLog log;
  log.tool_version = "test";
  log.root = root;
  log.results = std::move(results);
  return kaudit::evidence::render_sarif(log,
                                        [](const std::string& id) { return id == "banned-call" ? &kInfo : nullptr; });
}

TEST(Sarif, PathsArePercentEncodedAndRelativeOnlyUnderTheRoot) {
  using kaudit::evidence::percent_encode_path;
  EXPECT_EQ(percent_encode_path("a b/c%d#e?f/ü.py"), "a%20b/c%25d%23e%3Ff/%C3%BC.py");
  EXPECT_EQ(percent_encode_path("kernels/corpus/topk/x_y-z.~py"), "kernels/corpus/topk/x_y-z.~py");
  EXPECT_EQ(kaudit::evidence::file_uri("/tmp/a b", true), "file:///tmp/a%20b/");
  EXPECT_EQ(kaudit::evidence::relative_under("/r/x/../y/s.py", "/r/"), "y/s.py");
  EXPECT_EQ(kaudit::evidence::relative_under("/r/../etc/passwd", "/r"), "");
  EXPECT_EQ(kaudit::evidence::relative_under("/other/s.py", "/r"), "");
  EXPECT_EQ(kaudit::evidence::relative_under("/r", "/r"), "");
}

TEST(Sarif, LevelsFollowCategoryConfidenceAndStanding) {
  using kaudit::evidence::sarif_level;
  EXPECT_STREQ(sarif_level(Category::cheat, Confidence::low, SarifStanding::deciding), "error");
  EXPECT_STREQ(sarif_level(Category::benchmark_aware, Confidence::high, SarifStanding::deciding), "warning");
  EXPECT_STREQ(sarif_level(Category::cheat, Confidence::high, SarifStanding::beside), "warning");
  EXPECT_STREQ(sarif_level(Category::suspicious, Confidence::medium, SarifStanding::beside), "note");
  EXPECT_STREQ(sarif_level(Category::info, Confidence::high, SarifStanding::beside), "note");
  EXPECT_STREQ(sarif_level(Category::cheat, Confidence::medium, SarifStanding::no_verdict), "error");
  EXPECT_STREQ(sarif_level(Category::cheat, Confidence::low, SarifStanding::no_verdict), "warning");
  EXPECT_STREQ(sarif_level(Category::benchmark_aware, Confidence::low, SarifStanding::no_verdict), "note");
  EXPECT_STREQ(sarif_level(Category::suspicious, Confidence::high, SarifStanding::no_verdict), "note");
}

TEST(Sarif, HelpUrisPointAtTheHeadingsOfFindingsMd) {
  EXPECT_EQ(kaudit::evidence::heading_anchor("banned-call"), "banned-call");
  EXPECT_EQ(kaudit::evidence::heading_anchor("Output cached, on Identity!"), "output-cached-on-identity");
  const std::string uri = kaudit::evidence::finding_help_uri("banned-call");
  EXPECT_TRUE(std::regex_match(uri, std::regex("[a-z]+://.+/findings\\.md#banned-call"))) << uri;
  // Every "## id" heading of docs/findings.md is the anchor of its id.
  std::ifstream in(std::string(KAUDIT_SOURCE_DIR) + "/docs/findings.md");
  int headings = 0;
  for (std::string line; std::getline(in, line);)
    if (line.rfind("## ", 0) == 0) {
      ++headings;
      EXPECT_EQ(kaudit::evidence::heading_anchor(line.substr(3)), line.substr(3));
    }
  EXPECT_GT(headings, 20);
}

TEST_F(SarifFiles, ResultsCarryRelativeUrisRulesWithHelpAndStableFingerprints) {
  const std::string file = (root_ / "sub dir" / "a%b #1.py").string();
  const json doc = render(
      root_,
      {{finding("banned-call", file, 3, "torch.matmul at line 3"), SarifStanding::deciding, {{"submission", "k"}}},
       {finding("timing-forged", "", 0, "off by 12.5 ms"), SarifStanding::beside, {}}});
  ASSERT_EQ(doc["version"], "2.1.0");
  const json& run = doc["runs"][0];
  EXPECT_EQ(run["originalUriBaseIds"]["%SRCROOT%"]["uri"], kaudit::evidence::file_uri(root_, true));
  ASSERT_EQ(run["tool"]["driver"]["rules"].size(), 2u);
  const json& rule = run["tool"]["driver"]["rules"][0];
  EXPECT_EQ(rule["id"], "banned-call");
  EXPECT_EQ(rule["help"]["text"], "confirm");
  EXPECT_NE(rule["helpUri"].get<std::string>().find("findings.md#banned-call"), std::string::npos);
  EXPECT_FALSE(run["tool"]["driver"]["rules"][1].contains("helpUri")) << "an unknown id links nowhere";

  const json& r = run["results"][0];
  EXPECT_EQ(r["level"], "error");
  EXPECT_EQ(r["properties"]["submission"], "k");
  EXPECT_EQ(r["properties"]["deciding"], true);
  const json& loc = r["locations"][0]["physicalLocation"];
  EXPECT_EQ(loc["artifactLocation"]["uri"], "sub%20dir/a%25b%20%231.py");
  EXPECT_EQ(loc["artifactLocation"]["uriBaseId"], "%SRCROOT%");
  EXPECT_EQ(loc["region"]["startLine"], 3);
  const json& runtime = run["results"][1];
  EXPECT_FALSE(runtime.contains("locations")) << "no file, no location";
  EXPECT_EQ(runtime["level"], "warning");

  // The fingerprint: rule, URI and the line's text, so that moving the line
  // or rewording the message keeps it; another line's text changes it.
  const std::string fp = r["partialFingerprints"]["kauditFinding/v1"];
  EXPECT_TRUE(std::regex_match(fp, std::regex("[0-9a-f]{16}:1"))) << fp;
  std::ofstream(root_ / "sub dir" / "a%b #1.py") << "# a new first line\nimport torch\n\n y = torch.matmul(a, b)\n";
  const json moved =
      render(root_, {{finding("banned-call", file, 4, "torch.matmul at line 4"), SarifStanding::beside, {}}});
  EXPECT_EQ(moved["runs"][0]["results"][0]["partialFingerprints"]["kauditFinding/v1"], fp);
  const json other =
      render(root_, {{finding("banned-call", file, 2, "torch.matmul at line 3"), SarifStanding::beside, {}}});
  EXPECT_NE(other["runs"][0]["results"][0]["partialFingerprints"]["kauditFinding/v1"], fp);
}

TEST_F(SarifFiles, FindingsWithoutALineAreFingerprintedByTheirMessageLessItsNumbers) {
  const auto fp = [&](const std::string& message) {
    return render(root_, {{finding("timing-forged", "s.py", 0, message),
                           SarifStanding::deciding,
                           {}}})["runs"][0]["results"][0]["partialFingerprints"]["kauditFinding/v1"]
        .get<std::string>();
  };
  EXPECT_EQ(fp("reported 1.5 ms, measured 12 ms"), fp("reported 7.25 ms, measured 130 ms"));
  EXPECT_NE(fp("reported 1.5 ms, measured 12 ms"), fp("reported 1.5 ms for shape 0"));
  // Two equal findings differ by their occurrence.
  const json twice = render(root_, {{finding("timing-forged", "s.py", 0, "x"), SarifStanding::deciding, {}},
                                    {finding("timing-forged", "s.py", 0, "x"), SarifStanding::deciding, {}}});
  const std::string a = twice["runs"][0]["results"][0]["partialFingerprints"]["kauditFinding/v1"];
  const std::string b = twice["runs"][0]["results"][1]["partialFingerprints"]["kauditFinding/v1"];
  EXPECT_EQ(a.substr(0, 16), b.substr(0, 16));
  EXPECT_EQ(a.substr(16), ":1");
  EXPECT_EQ(b.substr(16), ":2");
}

TEST_F(SarifFiles, PathsOutsideTheRootAreAbsoluteFileUris) {
  const json doc = render(root_ / "sub dir",
                          {{finding("banned-call", "../../elsewhere/x y.py", 1, "m"), SarifStanding::no_verdict, {}}});
  const json& art = doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"];
  EXPECT_FALSE(art.contains("uriBaseId"));
  EXPECT_EQ(art["uri"], kaudit::evidence::file_uri(root_.parent_path() / "elsewhere" / "x y.py"));
}

}  // namespace
