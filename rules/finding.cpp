#include "rules/finding.h"

#include <algorithm>
#include <stdexcept>
#include <tuple>

namespace kaudit::rules {

std::string_view to_string(Category c) {
  switch (c) {
    case Category::cheat: return "cheat";
    case Category::benchmark_aware: return "benchmark-aware";
    case Category::suspicious: return "suspicious";
    case Category::info: return "info";
  }
  return "info";
}

std::string_view to_string(Confidence c) {
  switch (c) {
    case Confidence::low: return "low";
    case Confidence::medium: return "medium";
    case Confidence::high: return "high";
  }
  return "medium";
}

std::string_view to_string(Source s) {
  switch (s) {
    case Source::static_analysis: return "static";
    case Source::trace: return "trace";
    case Source::probe: return "probe";
    case Source::timing: return "timing";
  }
  return "static";
}

std::optional<Category> category_from_string(std::string_view s) {
  for (auto c : {Category::cheat, Category::benchmark_aware, Category::suspicious, Category::info})
    if (to_string(c) == s) return c;
  return std::nullopt;
}

std::optional<Confidence> confidence_from_string(std::string_view s) {
  for (auto c : {Confidence::low, Confidence::medium, Confidence::high})
    if (to_string(c) == s) return c;
  return std::nullopt;
}

std::optional<Source> source_from_string(std::string_view s) {
  for (auto c : {Source::static_analysis, Source::trace, Source::probe, Source::timing})
    if (to_string(c) == s) return c;
  return std::nullopt;
}

void sort_and_deduplicate(std::vector<Finding>& findings) {
  auto key = [](const Finding& f) {
    return std::tie(f.location.file, f.location.line, f.location.column, f.id, f.message);
  };
  std::stable_sort(findings.begin(), findings.end(),
                   [&](const Finding& a, const Finding& b) { return key(a) < key(b); });
  findings.erase(std::unique(findings.begin(), findings.end(),
                             [&](const Finding& a, const Finding& b) { return key(a) == key(b); }),
                 findings.end());
}

nlohmann::json to_json(const Finding& f) {
  nlohmann::json loc = {{"file", f.location.file}, {"line", f.location.line},
                        {"column", f.location.column}};
  if (!f.location.symbol.empty()) loc["symbol"] = f.location.symbol;
  return {{"id", f.id},
          {"source", to_string(f.source)},
          {"category", to_string(f.category)},
          {"confidence", to_string(f.confidence)},
          {"location", loc},
          {"message", f.message}};
}

Finding finding_from_json(const nlohmann::json& j) {
  auto need = []<typename T>(std::optional<T> v, const char* what) {
    if (!v) throw std::runtime_error(std::string("finding: bad value for ") + what);
    return *v;
  };
  Finding f;
  f.id = j.at("id").get<std::string>();
  f.source = need(source_from_string(j.at("source").get<std::string>()), "source");
  f.category = need(category_from_string(j.at("category").get<std::string>()), "category");
  f.confidence = need(confidence_from_string(j.at("confidence").get<std::string>()), "confidence");
  const auto& loc = j.at("location");
  f.location.file = loc.at("file").get<std::string>();
  f.location.line = loc.value("line", 0);
  f.location.column = loc.value("column", 0);
  f.location.symbol = loc.value("symbol", "");
  f.message = j.at("message").get<std::string>();
  return f;
}

}  // namespace kaudit::rules
