// SARIF 2.1.0, the one writer behind `kaudit analyze --format sarif` (the
// analyzer's findings) and `kaudit audit --sarif FILE` (every finding of
// every verdict of a batch): relative, percent-encoded artifact URIs under
// the uriBaseId %SRCROOT%, a helpUri per rule into docs/findings.md, a
// partialFingerprints entry per result, and the level from the finding's
// category, confidence and standing in a verdict (docs/report-format.md,
// "SARIF"). It lives here, below the analyzer and the batch reports, because
// both write it and neither may include the other (CONTRIBUTING.md, Layout).
#pragma once

#include "rules/finding.h"
#include "rules/finding_info.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace kaudit::evidence {

// How a finding stands to a verdict; the level depends on it.
enum class SarifStanding {
  no_verdict,  // kaudit analyze: no verdict was made
  deciding,    // it decided the verdict's integrity
  beside,      // reported beside the verdict, deciding nothing
};

// "error", "warning" or "note" (docs/report-format.md, "SARIF levels").
const char* sarif_level(rules::Category category, rules::Confidence confidence, SarifStanding standing);

struct SarifResult {
  // location.file is the path as kaudit was given it: relative to the log's
  // root, or absolute. Empty: the result has no location.
  rules::Finding finding;
  SarifStanding standing = SarifStanding::no_verdict;
  nlohmann::json properties = nlohmann::json::object();  // merged into the result's properties
};

struct SarifLog {
  std::string tool_version;    // kaudit's (kaudit/version.h, which this folder may not include)
  std::filesystem::path root;  // where relative paths start (%SRCROOT%); absolute
  std::vector<SarifResult> results;
  nlohmann::json properties = nlohmann::json::object();  // the run's properties
};

// What an id means, for the rules[] entries; null for an id it does not know.
using RuleInfo = std::function<const rules::FindingInfo*(const std::string& id)>;

nlohmann::json render_sarif(const SarifLog& log, const RuleInfo& info);

// RFC 3986 percent-encoding of a path: every byte but the unreserved
// characters (A-Z a-z 0-9 - . _ ~) and '/' becomes %XX.
std::string percent_encode_path(std::string_view path);
// file:///... for an absolute path; a folder's URI ends with '/' when `folder`.
std::string file_uri(const std::filesystem::path& absolute, bool folder = false);
// The path of `file` relative to `root` ('/'-separated), when it lies under
// root once both are made absolute and normal; empty otherwise.
std::string relative_under(const std::filesystem::path& file, const std::filesystem::path& root);
// The anchor GitHub and most Markdown renderers give the heading "## id" of
// docs/findings.md: lower case, spaces to '-', other punctuation but '-'
// and '_' dropped.
std::string heading_anchor(std::string_view heading);
// The documentation of an id: KAUDIT_DOCS_URL (a build setting; by default
// the file:// URI of the source tree's docs/) + "findings.md#" + its anchor.
std::string finding_help_uri(std::string_view id);
// The stable part of a result's identity (partialFingerprints
// "kauditFinding/v1", before its ":occurrence"): a 64-bit FNV-1a hash, in
// hex, of the rule id, the artifact URI and either the finding's source line
// with surrounding blanks trimmed (`line_text`, when the finding has a line
// that could be read) or, without one, its message with every run of digits
// replaced by '0'.
std::string finding_fingerprint(const std::string& rule_id, const std::string& uri, const std::string* line_text,
                                const std::string& message);

}  // namespace kaudit::evidence
