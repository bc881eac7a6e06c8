// kaudit audit's CI outputs (report/ci_outputs.h) on the fixture batch and
// on a small hostile batch: the SARIF structure the code-scanning tools rely
// on (tests/audit/audit_ci_test.sh validates the files against the SARIF
// 2.1.0 schema), and JUnit XML that stays valid XML 1.0 whatever the
// submission's strings hold.
#include "report/ci_outputs.h"
#include "report/text.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>

using namespace kaudit::report;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const kaudit::rules::FindingInfo kBanned{
    "banned-call",   kaudit::rules::Category::cheat, kaudit::rules::Confidence::high, 1, "a banned op", "why",
    "how to confirm"};

kaudit::evidence::RuleInfo rule_info() {
  return [](const std::string& id) { return id == "banned-call" ? &kBanned : nullptr; };
}

const Batch& fixture() {
  static const Batch b = [] {
    fs::current_path(KAUDIT_SOURCE_DIR);
    return load_batch(fs::path(KAUDIT_REPORT_FIXTURES) / "batch");
  }();
  return b;
}

// The text between <tag ...> and </tag> (or of <tag .../>) for each testcase, by name.
std::map<std::string, std::string> testcases(const std::string& xml_text) {
  std::map<std::string, std::string> out;
  const std::regex tc("<testcase name=\"([^\"]*)\"[^>]*>([\\s\\S]*?)</testcase>");
  for (auto it = std::sregex_iterator(xml_text.begin(), xml_text.end(), tc); it != std::sregex_iterator(); ++it)
    out[(*it)[1]] = (*it)[2];
  return out;
}

TEST(BatchSarif, EveryFindingOfEveryVerdictWithItsSubmissionAndARelativeUri) {
  const Batch& b = fixture();
  const json doc = render_batch_sarif(b, rule_info(), "test");
  ASSERT_EQ(doc["version"], "2.1.0");
  const json& run = doc["runs"][0];
  std::size_t findings = 0;
  for (const auto& s : b.submissions) findings += s.deciding.size() + s.beside.size();
  ASSERT_GT(findings, 10u);
  ASSERT_EQ(run["results"].size(), findings);
  EXPECT_EQ(run["originalUriBaseIds"]["%SRCROOT%"]["uri"], kaudit::evidence::file_uri(fs::current_path(), true));
  std::set<std::string> fingerprints, rule_ids;
  for (const auto& r : run["tool"]["driver"]["rules"]) rule_ids.insert(r["id"].get<std::string>());
  for (const auto& r : run["results"]) {
    EXPECT_TRUE(rule_ids.count(r["ruleId"].get<std::string>())) << r["ruleId"];
    EXPECT_EQ(run["tool"]["driver"]["rules"][r["ruleIndex"].get<std::size_t>()]["id"], r["ruleId"]);
    EXPECT_TRUE(r["level"] == "error" || r["level"] == "warning" || r["level"] == "note") << r["level"];
    EXPECT_TRUE(r["properties"].contains("submission"));
    EXPECT_TRUE(r["properties"].contains("deciding"));
    fingerprints.insert(r["partialFingerprints"]["kauditFinding/v1"].get<std::string>());
    ASSERT_TRUE(r.contains("locations")) << r.dump();
    const json& art = r["locations"][0]["physicalLocation"]["artifactLocation"];
    EXPECT_EQ(art["uriBaseId"], "%SRCROOT%") << art;
    EXPECT_TRUE(std::regex_match(art["uri"].get<std::string>(), std::regex("[A-Za-z0-9._~%/-]+"))) << art;
    EXPECT_NE(art["uri"].get<std::string>().front(), '/');
  }
  EXPECT_EQ(fingerprints.size(), findings) << "every result its own fingerprint";
  bool linked = false;
  for (const auto& r : run["tool"]["driver"]["rules"]) {
    if (r["id"] != "banned-call") continue;
    linked = r["helpUri"].get<std::string>().find("findings.md#banned-call") != std::string::npos;
  }
  EXPECT_TRUE(linked) << "the fixture's banned-call rule links to its section of findings.md";
}

TEST(BatchSarif, LevelsFollowTheVerdictAndRuntimeFindingsHaveNoRegion) {
  const json doc = render_batch_sarif(fixture(), rule_info(), "test");
  bool saw_runtime = false, saw_deciding_cheat = false, saw_beside = false;
  for (const auto& r : doc["runs"][0]["results"]) {
    const json& p = r["properties"];
    const json& phys = r["locations"][0]["physicalLocation"];
    if (p["source"] != "static") {
      saw_runtime = true;
      EXPECT_FALSE(phys.contains("region")) << r.dump();
    }
    if (p["deciding"] == true && p["category"] == "cheat") {
      saw_deciding_cheat = true;
      EXPECT_EQ(r["level"], "error");
    }
    if (p["submission"] == "topk__clean_two_stage_select") {
      saw_beside = true;
      EXPECT_EQ(p["deciding"], false);
      EXPECT_EQ(r["level"], "note") << "a low-confidence finding beside a clean verdict";
      EXPECT_EQ(phys["artifactLocation"]["uri"], "kernels/corpus/topk/clean_two_stage_select.py");
    }
  }
  EXPECT_TRUE(saw_runtime && saw_deciding_cheat && saw_beside);
}

TEST(Junit, OneTestcasePerSubmissionWithItsOutcome) {
  const std::string x = render_junit(fixture());
  ASSERT_EQ(x.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites", 0), 0u) << x.substr(0, 80);
  EXPECT_NE(x.find("<testsuite name=\"kaudit audit batch\" tests=\"10\" failures=\"5\" errors=\"3\" skipped=\"1\""),
            std::string::npos)
      << x.substr(0, 400);
  const auto cases = testcases(x);
  ASSERT_EQ(cases.size(), 10u);
  EXPECT_EQ(cases.at("topk__clean_two_stage_select").find("<failure"), std::string::npos);
  EXPECT_EQ(cases.at("topk__clean_two_stage_select").find("<error"), std::string::npos);
  const std::string& cheat = cases.at("topk__cheat_cache_data_ptr");
  EXPECT_NE(cheat.find("<failure type=\"cheat\" message=\"cheat: cheat ["), std::string::npos) << cheat;
  EXPECT_NE(cheat.find("output-cached-on-identity"), std::string::npos) << cheat;
  EXPECT_NE(cases.at("paged_attention__aware_graph_keyed_on_ptr").find("<failure type=\"benchmark-aware\""),
            std::string::npos);
  EXPECT_NE(cases.at("moe_swiglu__clean_triton_grouped").find("<skipped message=\"not run"), std::string::npos);
  EXPECT_NE(cases.at("kda_chunked__partial").find("<error type=\"error\""), std::string::npos);
  EXPECT_NE(cases.at("kda_chunked__folder_missing")
                .find("<error type=\"no-verdict\" message=\"no-verdict: its folder is missing"),
            std::string::npos)
      << "the audit could not decide: " << cases.at("kda_chunked__folder_missing");
  EXPECT_NE(x.find("classname=\"topk\""), std::string::npos);
  // The hostile key and problem arrive escaped.
  EXPECT_NE(x.find("name=\"../&lt;script&gt;alert(9)&lt;/script&gt;\" classname=\"&lt;b&gt;topk&lt;/b&gt;\""),
            std::string::npos);
  EXPECT_EQ(x.find("<script"), std::string::npos);
}

TEST(Junit, ControlCharactersAndBrokenUtf8NeverReachTheFile) {
  EXPECT_EQ(xml("a\x01"
                "b\x1b[31m\xff<&>\"'\t\n",
                true),
            "a⟨U+0001⟩b⟨U+001B⟩[31m\xEF\xBF\xBD&lt;&amp;&gt;&quot;&#39;&#9;&#10;");
  EXPECT_EQ(xml("line\tone\nline two\xEF\xBF\xBE"), "line\tone\nline two⟨U+FFFE⟩");
  // A batch whose strings hold them: nothing but tab, newline and printable
  // UTF-8 in the file.
  const fs::path dir = fs::temp_directory_path() / ("kaudit_junit_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "k");
  std::ofstream(dir / "summary.json") << json{
      {"schema", "kaudit-audit/1"},
      {"submissions",
       {{{"key", "k"},
         {"path", "s\x07.py"},
         {"problem", "p\x01q"},
         {"result", "error"},
         {"integrity", "unverified"}}}}}.dump();
  std::ofstream(dir / "k" / "verdict.json") << json{
      {"schema", "kaudit-verdict/1"},
      {"result", "error"},
      {"integrity", "unverified"},
      {"result_reason", {{"phase", "import"}, {"reason", "boom\x01\x1b]0;title\x07 ]]> <x/>"}}},
      {"deciding", json::array()},
      {"beside",
       {{{"id", "timing-forged"},
         {"source", "timing"},
         {"category", "cheat"},
         {"confidence", "low"},
         {"location", {{"file", ""}, {"line", 0}}},
         {"message", "m\x02"}}}}}.dump();
  write_ci_outputs(dir, {dir / "out" / "r.sarif", dir / "out" / "r.xml", "test"}, rule_info());
  std::ifstream in(dir / "out" / "r.xml", std::ios::binary);
  const std::string x((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const unsigned char c : x) EXPECT_TRUE(c >= 0x20 || c == '\n' || c == '\t') << "byte " << int(c);
  EXPECT_NE(
      x.find("<error type=\"error\" message=\"error: import: boom⟨U+0001⟩⟨U+001B⟩]0;title⟨U+0007⟩ ]]&gt; &lt;x/&gt;\""),
      std::string::npos)
      << x;
  // The runtime finding with no file points at the submission's file.
  const json sarif = json::parse(std::ifstream(dir / "out" / "r.sarif"));
  const json& r = sarif["runs"][0]["results"][0];
  EXPECT_EQ(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "s%07.py");
  EXPECT_FALSE(r["locations"][0]["physicalLocation"].contains("region"));
  EXPECT_EQ(r["level"], "note") << "a low-confidence finding beside the verdict";
  fs::remove_all(dir);
}

}  // namespace
