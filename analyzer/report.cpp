#include "analyzer/report.h"

#include "analyzer/checks/registry.h"
#include "evidence/sarif.h"
#include "kaudit/version.h"

#include <filesystem>
#include <map>
#include <sstream>

namespace kaudit::analyzer {
namespace {

std::map<std::string, int> count_by_category(const std::vector<FileReport>& files) {
  std::map<std::string, int> counts = {{"cheat", 0}, {"benchmark-aware", 0}, {"suspicious", 0}, {"info", 0}};
  for (const auto& f : files)
    for (const auto& x : f.findings) counts[std::string(rules::to_string(x.category))]++;
  return counts;
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
  evidence::SarifLog log;
  log.tool_version = kVersion;
  log.root = std::filesystem::current_path();
  for (const auto& f : files)
    for (const auto& x : f.findings)
      log.results.push_back({x, evidence::SarifStanding::no_verdict, nlohmann::json::object()});
  log.properties = {{"rules", header.rules_name}};
  if (!header.problem_name.empty()) log.properties["problem"] = header.problem_name;
  return evidence::render_sarif(log, [](const std::string& id) { return info_for(id); });
}

int exit_status_for(const std::vector<FileReport>& files) {
  for (const auto& f : files)
    for (const auto& x : f.findings)
      if (x.category == rules::Category::cheat || x.category == rules::Category::benchmark_aware) return 1;
  return 0;
}

}  // namespace kaudit::analyzer
