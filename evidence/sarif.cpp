#include "evidence/sarif.h"

#include "evidence/json_file.h"

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <map>
#include <set>

namespace kaudit::evidence {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr const char* kBaseId = "%SRCROOT%";
constexpr const char* kFingerprintKey = "kauditFinding/v1";
constexpr std::uintmax_t kMaxSourceBytes = 16u << 20;  // a source past this gives no line text

// The source lines of the files results point at, each file read once.
class LineCache {
 public:
  // The text of 1-based `line` of `file`, or null when unknown.
  const std::string* line(const fs::path& file, int line) {
    if (line <= 0) return nullptr;
    auto [it, fresh] = files_.try_emplace(file.string());
    if (fresh) it->second = read_lines(file);
    const auto& lines = it->second;
    return static_cast<std::size_t>(line) <= lines.size() ? &lines[static_cast<std::size_t>(line) - 1] : nullptr;
  }

 private:
  static std::vector<std::string> read_lines(const fs::path& file) {
    std::error_code ec;
    const auto size = fs::file_size(file, ec);
    if (ec || size > kMaxSourceBytes) return {};
    std::vector<std::string> lines;
    const std::string text = read_text_file(file);
    std::size_t start = 0;
    while (start < text.size()) {
      std::size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      lines.push_back(text.substr(start, end - start));
      start = end + 1;
    }
    return lines;
  }
  std::map<std::string, std::vector<std::string>> files_;
};

std::string trimmed(const std::string& s) {
  const auto blank = [](unsigned char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
  };
  std::size_t a = 0, b = s.size();
  while (a < b && blank(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && blank(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

std::string without_numbers(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto digit = [&](std::size_t k) { return std::isdigit(static_cast<unsigned char>(s[k])) != 0; };
    if (!digit(i)) out += s[i];
    else if (i == 0 || !digit(i - 1)) out += '0';
  }
  return out;
}

json rule_entry(const std::string& id, const RuleInfo& info) {
  json r = {{"id", id}};
  const rules::FindingInfo* i = info ? info(id) : nullptr;
  if (!i) return r;
  r["shortDescription"] = {{"text", std::string(i->summary)}};
  r["fullDescription"] = {{"text", std::string(i->explanation)}};
  r["help"] = {{"text", std::string(i->confirm)}};
  r["helpUri"] = finding_help_uri(id);
  r["defaultConfiguration"] = {{"level", sarif_level(i->category, i->confidence, SarifStanding::no_verdict)}};
  r["properties"] = {{"category", std::string(rules::to_string(i->category))},
                     {"confidence", std::string(rules::to_string(i->confidence))}};
  return r;
}

// The artifact location of `file` and the path to read its lines from.
json artifact_location(const std::string& file, const fs::path& root, fs::path& resolved) {
  const fs::path p(file);
  resolved = (p.is_absolute() ? p : root / p).lexically_normal();
  const std::string rel = relative_under(resolved, root);
  if (rel.empty()) return {{"uri", file_uri(resolved)}};
  return {{"uri", percent_encode_path(rel)}, {"uriBaseId", kBaseId}};
}

json result_entry(const SarifResult& r, int rule_index, const fs::path& root, LineCache& lines,
                  std::map<std::string, int>& occurrences) {
  const rules::Finding& x = r.finding;
  json props = {{"category", std::string(rules::to_string(x.category))},
                {"confidence", std::string(rules::to_string(x.confidence))},
                {"source", std::string(rules::to_string(x.source))}};
  if (!x.location.symbol.empty()) props["symbol"] = x.location.symbol;
  if (r.standing != SarifStanding::no_verdict) props["deciding"] = r.standing == SarifStanding::deciding;
  for (const auto& [k, v] : r.properties.items()) props[k] = v;
  json out = {{"ruleId", x.id},
              {"ruleIndex", rule_index},
              {"level", sarif_level(x.category, x.confidence, r.standing)},
              {"message", {{"text", x.message.empty() ? x.id : x.message}}}};
  std::string uri;
  const std::string* line_text = nullptr;
  if (!x.location.file.empty()) {
    fs::path resolved;
    json phys = {{"artifactLocation", artifact_location(x.location.file, root, resolved)}};
    uri = phys["artifactLocation"]["uri"].get<std::string>();
    if (x.location.line > 0) {
      phys["region"] = {{"startLine", x.location.line}};
      if (x.location.column > 0) phys["region"]["startColumn"] = x.location.column;
      line_text = lines.line(resolved, x.location.line);
    }
    out["locations"] = json::array({{{"physicalLocation", phys}}});
  }
  const std::string base = finding_fingerprint(x.id, uri, line_text, x.message);
  out["partialFingerprints"] = {{kFingerprintKey, base + ":" + std::to_string(++occurrences[base])}};
  out["properties"] = props;
  return out;
}

}  // namespace

const char* sarif_level(rules::Category c, rules::Confidence conf, SarifStanding standing) {
  using rules::Category;
  const bool offence = c == Category::cheat || c == Category::benchmark_aware;
  switch (standing) {
    case SarifStanding::deciding: return c == Category::cheat ? "error" : offence ? "warning" : "note";
    case SarifStanding::beside: return conf == rules::Confidence::high && c != Category::info ? "warning" : "note";
    case SarifStanding::no_verdict: break;
  }
  if (!offence) return "note";
  if (conf == rules::Confidence::low) return c == Category::cheat ? "warning" : "note";
  return c == Category::cheat ? "error" : "warning";
}

std::string percent_encode_path(std::string_view path) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (const char ch : path) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
      out += ch;
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

std::string file_uri(const fs::path& absolute, bool folder) {
  std::string p = absolute.lexically_normal().generic_string();
  if (folder && (p.empty() || p.back() != '/')) p += '/';
  return "file://" + percent_encode_path(p);
}

std::string relative_under(const fs::path& file, const fs::path& root) {
  std::error_code ec;
  const fs::path f = fs::absolute(file, ec).lexically_normal();
  fs::path r = fs::absolute(root, ec).lexically_normal();
  if (ec) return "";
  if (r.has_relative_path() && r.filename().empty()) r = r.parent_path();
  const fs::path rel = f.lexically_relative(r);
  if (rel.empty() || rel == "." || *rel.begin() == "..") return "";
  return rel.generic_string();
}

std::string heading_anchor(std::string_view heading) {
  std::string out;
  for (const char ch : heading) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c >= 0x80) out += static_cast<char>(std::tolower(c));
    else if (c == ' ' || c == '-') out += '-';
    else if (c == '_') out += '_';
  }
  return out;
}

std::string finding_help_uri(std::string_view id) {
  std::string base = KAUDIT_DOCS_URL;
  if (base.empty()) base = file_uri(fs::path(KAUDIT_SOURCE_DIR) / "docs", true);
  if (base.back() != '/') base += '/';
  return base + "findings.md#" + percent_encode_path(heading_anchor(id));
}

std::string finding_fingerprint(const std::string& rule_id, const std::string& uri, const std::string* line_text,
                                const std::string& message) {
  std::uint64_t h = 14695981039346656037ull;  // FNV-1a, 64 bits
  const auto mix = [&h](const std::string& s) {
    for (const unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    h *= 1099511628211ull;  // a zero byte between fields
  };
  mix(rule_id);
  mix(uri);
  mix(line_text ? "line:" + trimmed(*line_text) : "message:" + without_numbers(message));
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

json render_sarif(const SarifLog& log, const RuleInfo& info) {
  std::set<std::string> used;
  for (const auto& r : log.results) used.insert(r.finding.id);
  json rules_arr = json::array();
  std::map<std::string, int> rule_index;
  for (const auto& id : used) {
    rule_index[id] = static_cast<int>(rules_arr.size());
    rules_arr.push_back(rule_entry(id, info));
  }
  LineCache lines;
  std::map<std::string, int> occurrences;
  json results = json::array();
  for (const auto& r : log.results)
    results.push_back(result_entry(r, rule_index[r.finding.id], log.root, lines, occurrences));
  json run = {{"tool", {{"driver", {{"name", "kaudit"}, {"version", log.tool_version}, {"rules", rules_arr}}}}},
              {"originalUriBaseIds",
               {{kBaseId,
                 {{"uri", file_uri(log.root, true)},
                  {"description", {{"text", "the folder kaudit ran in: relative submission paths start here"}}}}}}},
              {"results", results},
              {"properties", log.properties}};
  return {
      {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"}, {"version", "2.1.0"}, {"runs", json::array({run})}};
}

}  // namespace kaudit::evidence
