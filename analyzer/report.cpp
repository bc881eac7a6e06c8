#include "analyzer/report.h"

#include "analyzer/checks/registry.h"
#include "kaudit/version.h"

#include <map>
#include <set>
#include <sstream>

namespace kaudit::analyzer {
namespace {

std::map<std::string, int> count_by_category(const std::vector<FileReport>& files) {
  std::map<std::string, int> counts = {{"cheat", 0}, {"benchmark-aware", 0}, {"suspicious", 0}, {"info", 0}};
  for (const auto& f : files)
    for (const auto& x : f.findings) counts[std::string(rules::to_string(x.category))]++;
  return counts;
}

const char* sarif_level(rules::Category c) {
  switch (c) {
    case rules::Category::cheat: return "error";
    case rules::Category::benchmark_aware: return "warning";
    default: return "note";
  }
}

const CheckInfo* info_for(const std::string& id) {
  if (id == analysis_incomplete_info().id) return &analysis_incomplete_info();
  if (const Check* c = find_check(id)) return &c->info();
  return nullptr;
}

}  // namespace

std::string render_text(const std::vector<FileReport>& files, bool color) {
  std::ostringstream out;
  auto paint = [&](rules::Category c) -> std::string {
    if (!color) return "";
    switch (c) {
      case rules::Category::cheat: return "\033[1;31m";
      case rules::Category::benchmark_aware: return "\033[1;33m";
      case rules::Category::suspicious: return "\033[36m";
      default: return "\033[2m";
    }
  };
  const std::string reset = color ? "\033[0m" : "";
  size_t total = 0;
  for (const auto& f : files) {
    total += f.findings.size();
    for (const auto& x : f.findings) {
      out << x.location.file;
      if (x.location.line > 0) out << ':' << x.location.line;
      if (x.location.column > 0) out << ':' << x.location.column;
      out << ": " << paint(x.category) << rules::to_string(x.category) << reset << " [" << x.id << "] "
          << x.message << " (confidence " << rules::to_string(x.confidence) << ")\n";
    }
  }
  const auto counts = count_by_category(files);
  out << files.size() << " file(s), " << total << " finding(s): " << counts.at("cheat") << " cheat, "
      << counts.at("benchmark-aware") << " benchmark-aware, " << counts.at("suspicious") << " suspicious, "
      << counts.at("info") << " info\n";
  return out.str();
}

nlohmann::json render_json(const std::vector<FileReport>& files, const ReportHeader& header) {
  nlohmann::json doc = {{"schema", "kaudit-analysis/1"},
                        {"kaudit_version", kVersion},
                        {"rules", header.rules_name},
                        {"problem", header.problem_name.empty() ? nlohmann::json(nullptr) : nlohmann::json(header.problem_name)}};
  auto arr = nlohmann::json::array();
  size_t total = 0;
  for (const auto& f : files) {
    auto findings = nlohmann::json::array();
    for (const auto& x : f.findings) findings.push_back(rules::to_json(x));
    total += f.findings.size();
    nlohmann::json entry = {{"path", f.path}, {"seconds", f.seconds}, {"findings", findings}};
    if (f.gpu_toolchains) entry["gpu_toolchains"] = *f.gpu_toolchains;
    arr.push_back(entry);
  }
  doc["files"] = arr;
  doc["summary"] = {{"files", files.size()}, {"findings", total}, {"by_category", count_by_category(files)}};
  return doc;
}

nlohmann::json render_sarif(const std::vector<FileReport>& files, const ReportHeader& header) {
  std::set<std::string> used;
  for (const auto& f : files)
    for (const auto& x : f.findings) used.insert(x.id);
  auto rules_arr = nlohmann::json::array();
  std::map<std::string, int> rule_index;
  for (const auto& id : used) {
    nlohmann::json r = {{"id", id}};
    if (const CheckInfo* info = info_for(id)) {
      r["shortDescription"] = {{"text", std::string(info->summary)}};
      r["fullDescription"] = {{"text", std::string(info->explanation)}};
      r["help"] = {{"text", std::string(info->confirm)}};
      r["defaultConfiguration"] = {{"level", sarif_level(info->category)}};
      r["properties"] = {{"category", std::string(rules::to_string(info->category))}};
    }
    rule_index[id] = static_cast<int>(rules_arr.size());
    rules_arr.push_back(r);
  }
  auto results = nlohmann::json::array();
  for (const auto& f : files)
    for (const auto& x : f.findings) {
      nlohmann::json phys = {{"artifactLocation", {{"uri", x.location.file}}}};
      if (x.location.line > 0) {
        phys["region"] = {{"startLine", x.location.line}};
        if (x.location.column > 0) phys["region"]["startColumn"] = x.location.column;
      }
      results.push_back({{"ruleId", x.id},
                         {"ruleIndex", rule_index[x.id]},
                         {"level", sarif_level(x.category)},
                         {"message", {{"text", x.message}}},
                         {"locations", nlohmann::json::array({{{"physicalLocation", phys}}})},
                         {"properties",
                          {{"category", std::string(rules::to_string(x.category))},
                           {"confidence", std::string(rules::to_string(x.confidence))},
                           {"source", std::string(rules::to_string(x.source))}}}});
    }
  nlohmann::json run = {{"tool", {{"driver", {{"name", "kaudit"}, {"version", kVersion}, {"rules", rules_arr}}}}},
                        {"results", results},
                        {"properties", {{"rules", header.rules_name}}}};
  if (!header.problem_name.empty()) run["properties"]["problem"] = header.problem_name;
  return {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
          {"version", "2.1.0"},
          {"runs", nlohmann::json::array({run})}};
}

int exit_status_for(const std::vector<FileReport>& files) {
  for (const auto& f : files)
    for (const auto& x : f.findings)
      if (x.category == rules::Category::cheat || x.category == rules::Category::benchmark_aware) return 1;
  return 0;
}

}  // namespace kaudit::analyzer
