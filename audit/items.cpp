#include "audit/items.h"

#include "evidence/json_file.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <stdexcept>

namespace kaudit::audit {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

std::string sanitize(std::string s) {
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '_';
  return s;
}

void assign_keys(std::vector<AuditItem>& items) {
  std::set<std::string> used;
  for (auto& it : items) {
    std::string base = sanitize(it.source.parent_path().filename().string() + "__" + it.source.stem().string());
    std::string key = base;
    for (int n = 2; used.count(key); ++n) key = base + "_" + std::to_string(n);
    used.insert(key);
    it.key = key;
  }
}

}  // namespace

std::vector<AuditItem> items_from_paths(const std::vector<std::string>& paths, const std::optional<fs::path>& problem) {
  std::vector<AuditItem> items;
  for (const auto& p : paths) {
    if (fs::is_directory(p)) {
      if (fs::exists(fs::path(p) / "solution.py")) {
        items.push_back({fs::path(p) / "solution.py", problem, nullptr, ""});
        continue;
      }
      std::vector<fs::path> found;
      for (const auto& e : fs::recursive_directory_iterator(p))
        if (e.is_regular_file() && e.path().extension() == ".py") found.push_back(e.path());
      std::sort(found.begin(), found.end());
      for (const auto& f : found) items.push_back({f, problem, nullptr, ""});
    } else if (fs::exists(p)) {
      items.push_back({p, problem, nullptr, ""});
    } else {
      throw std::runtime_error("no such submission: " + p);
    }
  }
  assign_keys(items);
  return items;
}

std::vector<AuditItem> items_from_manifest(const fs::path& manifest) {
  const auto doc = evidence::read_json_file(manifest);
  if (!doc || !doc->contains("entries") || !(*doc)["entries"].is_array())
    throw std::runtime_error(manifest.string() + " is not a manifest (a JSON object with an entries array)");
  std::vector<AuditItem> items;
  for (const auto& e : (*doc)["entries"]) {
    if (!e.contains("path") || !e["path"].is_string())
      throw std::runtime_error(manifest.string() + ": an entry has no path");
    AuditItem it{e["path"].get<std::string>(), std::nullopt, nullptr, ""};
    if (e.contains("problem") && e["problem"].is_string()) it.problem = e["problem"].get<std::string>();
    if (e.contains("result") || e.contains("integrity"))
      it.expected = {{"result", e.value("result", "")}, {"integrity", e.value("integrity", "")}};
    items.push_back(std::move(it));
  }
  assign_keys(items);
  return items;
}

bool verdict_matches(const json& expected, const json& result, const json& integrity) {
  const std::string want_result = expected.value("result", ""), want = expected.value("integrity", "");
  if (want_result != result.get<std::string>()) return false;
  const std::string got = integrity.get<std::string>();
  return got == want || (want_result == "error" && want == "clean" && got == "unverified");
}

}  // namespace kaudit::audit
