#include "audit/items.h"

#include "evidence/json_file.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
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

Shard parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  auto number = [&](const std::string& part) {
    if (part.empty() || part.size() > 6 || !std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; }))
      throw std::invalid_argument("--shard '" + text + "': want I/N, two whole numbers such as 0/4");
    return std::stoi(part);
  };
  if (slash == std::string::npos) number("");
  Shard s{number(text.substr(0, slash)), number(text.substr(slash + 1))};
  if (s.count < 1) throw std::invalid_argument("--shard '" + text + "': the count N must be at least 1");
  if (s.index >= s.count)
    throw std::invalid_argument("--shard '" + text + "': the index must be below the count (shards are numbered 0 to " +
                                std::to_string(s.count - 1) + ")");
  return s;
}

std::vector<AuditItem> shard_items(const std::vector<AuditItem>& items, const Shard& shard) {
  std::vector<std::size_t> order(items.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return items[a].key < items[b].key; });
  std::vector<bool> taken(items.size(), false);
  for (std::size_t rank = static_cast<std::size_t>(shard.index); rank < order.size(); rank += static_cast<std::size_t>(shard.count))
    taken[order[rank]] = true;
  std::vector<AuditItem> out;
  for (std::size_t i = 0; i < items.size(); ++i)
    if (taken[i]) out.push_back(items[i]);
  return out;
}

json batch_inputs(const std::vector<AuditItem>& items) {
  // FNV-1a, 64 bits: not a defence against forgery, a check that shards were cut from the same list.
  std::uint64_t h = 14695981039346656037ull;
  auto mix = [&h](const std::string& s) {
    for (const unsigned char c : s + '\0') h = (h ^ c) * 1099511628211ull;
  };
  json list = json::array();
  for (const auto& it : items) {
    const std::string problem = it.problem ? it.problem->string() : "";
    mix(it.key);
    mix(it.source.string());
    mix(problem);
    json e = {{"key", it.key}, {"path", it.source.string()}, {"problem", it.problem ? json(it.problem->filename().string()) : json(nullptr)}};
    if (!it.expected.is_null()) e["expected"] = it.expected;
    list.push_back(std::move(e));
  }
  char digest[24];
  std::snprintf(digest, sizeof digest, "%016llx", static_cast<unsigned long long>(h));
  return {{"digest", std::string("fnv1a64:") + digest}, {"count", items.size()}, {"submissions", list}};
}

bool verdict_matches(const json& expected, const json& result, const json& integrity) {
  const std::string want_result = expected.value("result", ""), want = expected.value("integrity", "");
  if (want_result != result.get<std::string>()) return false;
  const std::string got = integrity.get<std::string>();
  return got == want || (want_result == "error" && want == "clean" && got == "unverified");
}

}  // namespace kaudit::audit
