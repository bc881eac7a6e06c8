#include "report/ci_outputs.h"

#include "evidence/json_file.h"
#include "report/text.h"
#include "common/utf8.h"

#include <cstdio>
#include <optional>

namespace kaudit::report {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

constexpr std::size_t kMessageBytes = 2048;  // a message attribute past this is cut (the text keeps it all)

// A finding as the batch shows it, back in the rules' types; a value the
// verdict document should not hold takes the mildest reading.
rules::Finding finding_of(const FindingView& v, const Submission& s) {
  rules::Finding f;
  f.id = v.id;
  f.source = rules::source_from_string(v.source).value_or(rules::Source::probe);
  f.category = rules::category_from_string(v.category).value_or(rules::Category::info);
  f.confidence = rules::confidence_from_string(v.confidence).value_or(rules::Confidence::low);
  f.location.file = v.file.empty() ? s.path : v.file;
  f.location.line = v.file.empty() ? 0 : v.line;
  f.location.column = v.file.empty() ? 0 : v.column;
  f.location.symbol = v.symbol;
  f.message = v.message;
  return f;
}

std::string joined(const std::vector<std::string>& lines, const char* sep) {
  std::string out;
  for (const auto& l : lines) out += (out.empty() ? "" : sep) + l;
  return out;
}

std::string cut(const std::string& s) { return s.size() <= kMessageBytes ? s : common::cut_utf8(s, kMessageBytes) + " ..."; }

std::string seconds_text(std::optional<double> s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", s && *s >= 0 && *s < 1e9 ? *s : 0.0);
  return buf;
}

// The element a testcase holds for its outcome (empty when it passed).
std::string outcome_element(const Submission& s, TestOutcome outcome) {
  std::string tag, type, message, text;
  const std::string notes = joined(s.notes, "; ");
  switch (outcome) {
    case TestOutcome::passed: return "";
    case TestOutcome::failure:
      tag = "failure";
      type = s.integrity == "cheat" || s.integrity == "benchmark-aware" ? s.integrity : s.result;
      message = joined(s.reasons, "; ");
      if (message.empty()) message = s.result_reason.empty() ? s.result : s.result + ": " + s.result_reason;
      text = joined(s.reasons, "\n");
      if (!s.result_reason.empty()) text += (text.empty() ? "" : "\n") + s.result + ": " + s.result_reason;
      break;
    case TestOutcome::error:
      tag = "error";
      type = s.result == "not-run" ? "no-verdict" : s.result;  // an audit that could not decide
      message = !s.result_reason.empty() ? s.result_reason : !notes.empty() ? notes : s.result;
      text = s.result + (s.result_reason.empty() ? "" : ": " + s.result_reason);
      break;
    case TestOutcome::skipped:
      return "      <skipped message=\"" + xml(cut("not run" + (notes.empty() ? "" : ": " + notes)), true) + "\"/>\n";
  }
  if (!notes.empty()) text += "\nnotes: " + joined(s.notes, "\n");
  return "      <" + tag + " type=\"" + xml(type, true) + "\" message=\"" + xml(cut(type + ": " + message), true) +
         "\">" + xml(text) + "</" + tag + ">\n";
}

std::string system_out(const Submission& s) {
  std::string text = "result: " + s.result + ", integrity: " + s.integrity + "\n";
  if (!s.path.empty()) text += "path: " + s.path + "\n";
  for (const auto& r : s.reasons) text += "reason: " + r + "\n";
  if (!s.result_reason.empty()) text += "result reason: " + s.result_reason + "\n";
  for (const auto& n : s.notes) text += "note: " + n + "\n";
  return "      <system-out>" + xml(text) + "</system-out>\n";
}

}  // namespace

json render_batch_sarif(const Batch& batch, const evidence::RuleInfo& info, const std::string& kaudit_version) {
  evidence::SarifLog log;
  log.tool_version = kaudit_version;
  std::error_code ec;
  log.root = batch.root.empty() ? fs::current_path(ec) : fs::path(batch.root);
  for (const auto& s : batch.submissions) {
    const json props = {
        {"submission", s.key}, {"problem", s.problem}, {"result", s.result}, {"integrity", s.integrity}};
    for (const auto* list : {&s.deciding, &s.beside})
      for (const auto& v : *list)
        log.results.push_back({finding_of(v, s),
                               v.deciding ? evidence::SarifStanding::deciding : evidence::SarifStanding::beside,
                               props});
  }
  log.properties = {{"batch", batch.out_dir.string()}, {"kaudit_version_of_batch", batch.kaudit_version}};
  return evidence::render_sarif(log, info);
}

TestOutcome test_outcome(const Submission& s) {
  if (s.integrity == "cheat" || s.integrity == "benchmark-aware" || s.result == "incorrect")
    return TestOutcome::failure;
  if (s.result == "error" || s.result == "infrastructure-error" || s.result == "unknown" || s.integrity == "unknown" ||
      s.status == "failed")
    return TestOutcome::error;
  if (s.result == "not-run") return TestOutcome::skipped;
  return TestOutcome::passed;
}

std::string render_junit(const Batch& batch) {
  int failures = 0, errors = 0, skipped = 0;
  double seconds = 0;
  std::string cases;
  for (const auto& s : batch.submissions) {
    const TestOutcome o = test_outcome(s);
    failures += o == TestOutcome::failure;
    errors += o == TestOutcome::error;
    skipped += o == TestOutcome::skipped;
    if (s.seconds && *s.seconds > 0 && *s.seconds < 1e9) seconds += *s.seconds;
    cases += "    <testcase name=\"" + xml(s.key, true) + "\" classname=\"" +
             xml(s.problem.empty() ? "no-problem" : s.problem, true) + "\" time=\"" + seconds_text(s.seconds) +
             "\">\n" + outcome_element(s, o) + system_out(s) + "    </testcase>\n";
  }
  const std::string counts = "tests=\"" + std::to_string(batch.submissions.size()) + "\" failures=\"" +
                             std::to_string(failures) + "\" errors=\"" + std::to_string(errors) + "\" skipped=\"" +
                             std::to_string(skipped) + "\" time=\"" + seconds_text(seconds) + "\"";
  fs::path folder = batch.out_dir.lexically_normal();
  if (folder.filename().empty()) folder = folder.parent_path();
  const std::string name = xml("kaudit audit " + folder.filename().string(), true);
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"" + name + "\" " + counts + ">\n" +
         "  <testsuite name=\"" + name + "\" " + counts + ">\n" + cases + "  </testsuite>\n</testsuites>\n";
}

void write_ci_outputs(const fs::path& out_dir, const CiOutputs& outputs, const evidence::RuleInfo& info) {
  if (outputs.sarif.empty() && outputs.junit.empty()) return;
  const Batch batch = load_batch(out_dir);
  for (const fs::path* p : {&outputs.sarif, &outputs.junit})
    if (!p->empty() && p->has_parent_path()) fs::create_directories(p->parent_path());
  if (!outputs.sarif.empty())
    evidence::write_json_file(outputs.sarif, render_batch_sarif(batch, info, outputs.kaudit_version));
  if (!outputs.junit.empty()) evidence::write_text_file(outputs.junit, render_junit(batch));
}

}  // namespace kaudit::report
