#include "audit/merge.h"

#include "audit/audit.h"
#include "evidence/json_file.h"
#include "evidence/schemas.h"
#include "kaudit/version.h"
#include "report/report.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>

namespace kaudit::audit {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// One batch folder given to the merge, and which shards of which inputs it holds.
struct Input {
  fs::path dir;
  json summary;
  std::set<int> shards;  // empty: not a shard (a whole batch)
  int count = 0;         // the number of shards of its batch
  json inputs;           // the whole batch's inputs (shards only)

  std::string label() const {
    std::string s = dir.string();
    if (shards.size() == 1) s += " (shard " + std::to_string(*shards.begin()) + "/" + std::to_string(count) + ")";
    if (shards.size() > 1) s += " (" + std::to_string(shards.size()) + " shards of " + std::to_string(count) + ")";
    return s;
  }
  std::string digest() const { return inputs.value("digest", ""); }
};

// A shard's summary says `shard` (kaudit audit --shard); a merge of shards
// says `merge.shards` and `merge.inputs`, and can be merged again with the rest.
void read_shards(Input& in) {
  const json& s = in.summary;
  if (s.contains("shard") && s["shard"].is_object()) {
    const json& sh = s["shard"];
    in.count = sh.value("count", 0);
    in.inputs = sh.value("inputs", json::object());
    const int index = sh.value("index", -1);
    if (in.count < 1 || index < 0 || index >= in.count || !in.inputs.is_object() || in.digest().empty())
      throw MergeError(in.dir.string() + "/summary.json: its shard record is not index, count and inputs");
    in.shards.insert(index);
  } else if (s.contains("merge") && s["merge"].is_object() && s["merge"].contains("shards")) {
    const json& m = s["merge"];
    in.count = m["shards"].value("count", 0);
    in.inputs = m.value("inputs", json::object());
    for (const auto& i : m["shards"].value("present", json::array()))
      if (i.is_number_integer()) in.shards.insert(i.get<int>());
    if (in.count < 1 || in.shards.empty() || !in.inputs.is_object() || in.digest().empty())
      throw MergeError(in.dir.string() + "/summary.json: its merge record has no shards and inputs");
  }
}

fs::path normal(const fs::path& p) {
  fs::path a = fs::absolute(p).lexically_normal();
  if (!a.has_filename()) a = a.parent_path();
  return fs::weakly_canonical(a);
}

bool inside(const fs::path& p, const fs::path& folder) {
  const auto rel = p.lexically_relative(folder);
  return !rel.empty() && *rel.begin() != "..";
}

std::vector<Input> read_inputs(const MergeOptions& o, const fs::path& out) {
  std::vector<Input> inputs;
  std::set<fs::path> seen;
  for (const auto& dir : o.batches) {
    const fs::path canon = normal(dir);
    if (inside(canon, out) || inside(out, canon) || canon == out)
      throw MergeError(dir.string() + " and the output " + o.out_dir.string() +
                       " are one folder or one holds the other: merge into a new folder");
    if (!seen.insert(canon).second) throw MergeError(dir.string() + " is given twice");
    const auto summary = evidence::read_json_file(dir / "summary.json");
    if (!summary || !summary->is_object() || summary->value("schema", "") != evidence::kAuditSchema ||
        !summary->contains("submissions") || !(*summary)["submissions"].is_array())
      throw MergeError(dir.string() + " is not a batch folder (no summary.json of schema " +
                       std::string(evidence::kAuditSchema) + " with submissions)");
    Input in{dir, *summary, {}, 0, json::object()};
    read_shards(in);
    inputs.push_back(std::move(in));
  }
  return inputs;
}

// Shards join only shards of the same inputs cut the same way; a shard in
// two batches is a conflict.
std::vector<json> check_shards(const std::vector<Input>& inputs) {
  const Input* first_shard = nullptr;
  const Input* first_whole = nullptr;
  for (const auto& in : inputs) {
    const Input*& first = in.shards.empty() ? first_whole : first_shard;
    if (!first) first = &in;
  }
  if (first_shard && first_whole)
    throw MergeError(first_shard->label() + " is a shard and " + first_whole->dir.string() +
                     " is not: merge the shards of one batch, or whole batches");
  std::vector<json> conflicts;
  std::map<int, const Input*> holder;
  for (const auto& in : inputs) {
    if (in.shards.empty()) continue;
    if (in.count != first_shard->count || in.digest() != first_shard->digest())
      throw MergeError(first_shard->label() + " and " + in.label() + " are not shards of one batch (" +
                       std::to_string(first_shard->count) + " shards of inputs " + first_shard->digest() + ", " +
                       std::to_string(in.count) + " of " + in.digest() +
                       "): shards must be cut with the same N from the same manifest or paths, in the same folder");
    for (const int i : in.shards) {
      const auto [it, fresh] = holder.emplace(i, &in);
      if (!fresh)
        conflicts.push_back({{"shard", i},
                             {"batches", {it->second->dir.string(), in.dir.string()}},
                             {"why", "shard " + std::to_string(i) + "/" + std::to_string(in.count) + " is in both " +
                                         it->second->label() + " and " + in.label()}});
    }
  }
  return conflicts;
}

// Each file of an evidence folder by its path inside it, with a hash of its bytes.
std::map<std::string, std::uint64_t> fingerprint(const fs::path& dir) {
  std::map<std::string, std::uint64_t> files;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    std::uint64_t h = 14695981039346656037ull;
    for (const unsigned char c : evidence::read_text_file(e.path())) h = (h ^ c) * 1099511628211ull;
    files[e.path().lexically_relative(dir).string()] = h;
  }
  return files;
}

// Why two batches' records of one submission differ; empty when they agree.
std::string difference(const Input& a, const json& ea, const Input& b, const json& eb, const std::string& key) {
  const auto verdict = [](const json& e) { return e.value("result", "?") + " / " + e.value("integrity", "?"); };
  if (verdict(ea) != verdict(eb))
    return a.label() + " says " + verdict(ea) + ", " + b.label() + " says " + verdict(eb);
  const auto fa = fingerprint(a.dir / key), fb = fingerprint(b.dir / key);
  if (fa == fb) return "";
  std::string files;
  for (const auto& [name, h] : fa)
    if (!fb.count(name) || fb.at(name) != h) files += (files.empty() ? "" : ", ") + name;
  for (const auto& [name, h] : fb)
    if (!fa.count(name)) files += (files.empty() ? "" : ", ") + name;
  return "the same verdict (" + verdict(ea) + ") but different evidence in " + a.label() + " and " + b.label() +
         " (" + files + ")";
}

bool folder_name(const std::string& key) {
  return !key.empty() && key != "." && key != ".." && key.find('/') == std::string::npos &&
         key.find('\\') == std::string::npos && key.find('\0') == std::string::npos;
}

struct Chosen {
  std::size_t batch = 0;
  json entry;
  std::size_t seen = 0;  // the order it was first met in
};

// Every batch's submissions, one record per key; conflicts appended.
std::map<std::string, Chosen> choose_entries(const std::vector<Input>& inputs, const std::string& on_conflict,
                                             std::vector<json>& conflicts) {
  std::map<std::string, Chosen> chosen;
  for (std::size_t b = 0; b < inputs.size(); ++b) {
    for (const auto& e : inputs[b].summary["submissions"]) {
      if (!e.is_object() || e.value("status", "") == "missing") continue;  // a missing one holds no evidence
      const std::string key = e.contains("key") && e["key"].is_string() ? e["key"].get<std::string>() : "";
      if (!folder_name(key))
        throw MergeError(inputs[b].dir.string() + "/summary.json lists a submission whose key '" + key +
                         "' is not a folder name");
      const auto it = chosen.find(key);
      if (it == chosen.end()) {
        chosen.emplace(key, Chosen{b, e, chosen.size()});
        continue;
      }
      const Input& prev = inputs[it->second.batch];
      const std::string why = difference(prev, it->second.entry, inputs[b], e, key);
      if (why.empty()) continue;  // the same record twice: one copy is enough
      const bool last = on_conflict == "last";
      conflicts.push_back({{"key", key},
                           {"batches", {prev.dir.string(), inputs[b].dir.string()}},
                           {"why", key + ": " + why},
                           {"kept", on_conflict == "error" ? json(nullptr) : json(last ? inputs[b].dir.string() : prev.dir.string())}});
      if (last) it->second = Chosen{b, e, it->second.seen};
    }
  }
  return chosen;
}

// Where relative submission paths start: the batches' common root, else the
// current folder with each relative path made absolute from its own batch's.
std::string common_root(const std::vector<Input>& inputs, bool& absolute_paths) {
  std::set<std::string> roots;
  for (const auto& in : inputs) roots.insert(in.summary.value("root", ""));
  absolute_paths = roots.size() > 1;
  return roots.size() == 1 ? *roots.begin() : fs::current_path().string();
}

json place_path(json entry, const std::string& batch_root, bool absolute_paths) {
  if (!absolute_paths || !entry.contains("path") || !entry["path"].is_string()) return entry;
  const fs::path p = entry["path"].get<std::string>();
  if (p.is_relative() && !batch_root.empty()) entry["path"] = (fs::path(batch_root) / p).lexically_normal().string();
  return entry;
}

// The inputs' submissions that no batch holds, as entries with status `missing`.
std::vector<json> missing_entries(const json& whole, const std::map<std::string, Chosen>& chosen) {
  std::vector<json> out;
  for (const auto& s : whole.value("submissions", json::array())) {
    if (!s.is_object() || chosen.count(s.value("key", ""))) continue;
    json e = {{"key", s.value("key", "")}, {"path", s.value("path", "")}, {"problem", s.value("problem", json())},
              {"result", "not-run"}, {"integrity", "not-run"}, {"status", "missing"}, {"seconds", 0}};
    if (s.contains("expected") && s["expected"].is_object()) {
      e["expected"] = s["expected"];
      e["matches"] = false;
    }
    out.push_back(std::move(e));
  }
  return out;
}

// The merged submissions[] in the whole batch's order (its inputs' order for
// shards, else the order they were met in), missing ones in their places.
json merged_entries(const std::vector<Input>& inputs, const std::map<std::string, Chosen>& chosen, const Input* shard,
                    bool absolute_paths, std::vector<std::string>& missing_keys) {
  std::map<std::string, std::size_t> rank;
  if (shard)
    for (const auto& s : shard->inputs.value("submissions", json::array()))
      if (s.is_object()) rank.emplace(s.value("key", ""), rank.size());
  std::vector<std::pair<std::size_t, json>> ordered;
  for (const auto& [key, c] : chosen) {
    const auto r = rank.find(key);
    const std::size_t at = r != rank.end() ? r->second : rank.size() + c.seen;
    ordered.emplace_back(at, place_path(c.entry, inputs[c.batch].summary.value("root", ""), absolute_paths));
  }
  if (shard) {
    for (auto& e : missing_entries(shard->inputs, chosen)) {
      const std::string key = e["key"].get<std::string>();
      missing_keys.push_back(key);
      ordered.emplace_back(rank.at(key), place_path(std::move(e), shard->summary.value("root", ""), absolute_paths));
    }
  }
  std::sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  json entries = json::array();
  for (auto& [at, e] : ordered) entries.push_back(std::move(e));
  return entries;
}

// OUT may be new, empty, or an earlier merge (which the new one replaces).
void check_output(const fs::path& out, const fs::path& given) {
  std::error_code ec;
  if (!fs::exists(out, ec)) return;
  if (!fs::is_directory(out, ec)) throw MergeError(given.string() + " exists and is not a folder");
  if (fs::is_empty(out, ec)) return;
  const auto old = evidence::read_json_file(out / "summary.json");
  if (!old || !old->is_object() || !old->contains("merge"))
    throw MergeError(given.string() + " exists and is not the output of an earlier kaudit merge: merge into a new folder");
}

void copy_evidence(const std::vector<Input>& inputs, const std::map<std::string, Chosen>& chosen, const fs::path& to,
                   bool link) {
  const auto how = fs::copy_options::recursive | (link ? fs::copy_options::create_hard_links : fs::copy_options::none);
  for (const auto& [key, c] : chosen) {
    const fs::path from = inputs[c.batch].dir / key;
    std::error_code ec;
    if (fs::is_directory(from, ec)) fs::copy(from, to / key, how);
  }
}

json merge_record(const std::vector<Input>& inputs, const Input* shard, const std::vector<json>& conflicts,
                  const std::vector<std::string>& missing_keys) {
  json batches = json::array();
  for (const auto& in : inputs) {
    json b = {{"dir", in.dir.string()},
              {"device", in.summary.value("device", json())},
              {"submissions", in.summary["submissions"].size()}};
    if (!in.shards.empty()) b["shards"] = in.shards;
    batches.push_back(std::move(b));
  }
  json m = {{"batches", batches}, {"conflicts", conflicts}, {"missing", missing_keys}};
  if (shard) {
    std::set<int> present;
    for (const auto& in : inputs) present.insert(in.shards.begin(), in.shards.end());
    std::vector<int> absent;
    for (int i = 0; i < shard->count; ++i)
      if (!present.count(i)) absent.push_back(i);
    m["shards"] = {{"count", shard->count}, {"present", present}, {"missing", absent}};
    m["inputs"] = shard->inputs;
  }
  return m;
}

}  // namespace

json merge_batches(const MergeOptions& o) {
  if (o.on_conflict != "error" && o.on_conflict != "first" && o.on_conflict != "last")
    throw std::invalid_argument("--on-conflict: '" + o.on_conflict + "' is not error, first or last");
  if (o.batches.empty()) throw std::invalid_argument("give at least one batch folder to merge");
  const fs::path out = normal(o.out_dir);
  check_output(out, o.out_dir);
  const std::vector<Input> inputs = read_inputs(o, out);
  std::vector<json> conflicts = check_shards(inputs);
  const auto chosen = choose_entries(inputs, o.on_conflict, conflicts);
  if (!conflicts.empty() && o.on_conflict == "error") {
    std::string what;
    for (const auto& c : conflicts) what += "\n  " + c["why"].get<std::string>();
    throw MergeError("the batches conflict (--on-conflict first or last chooses which wins):" + what);
  }
  const auto shard_it = std::find_if(inputs.begin(), inputs.end(), [](const Input& in) { return !in.shards.empty(); });
  const Input* shard = shard_it == inputs.end() ? nullptr : &*shard_it;

  bool absolute_paths = false;
  const std::string root = common_root(inputs, absolute_paths);
  std::vector<std::string> missing_keys;
  std::set<std::string> devices;
  bool gpu_seen = false;
  for (const auto& in : inputs) {
    devices.insert(in.summary.value("device", "none"));
    gpu_seen = gpu_seen || in.summary.value("gpu", json()).is_string();
  }
  json summary = {{"schema", evidence::kAuditSchema},
                  {"kaudit_version", kaudit::kVersion},
                  {"root", root},
                  {"device", devices.size() == 1 ? *devices.begin() : std::string("mixed")},
                  {"submissions", merged_entries(inputs, chosen, shard, absolute_paths, missing_keys)}};
  summary["merge"] = merge_record(inputs, shard, conflicts, missing_keys);

  const fs::path tmp = out.string() + ".merge-tmp";
  fs::remove_all(tmp);
  try {
    fs::create_directories(tmp);
    copy_evidence(inputs, chosen, tmp, o.link);
    complete_summary(summary, tmp, gpu_seen);
    evidence::write_json_file(tmp / "summary.json", summary);
    report::write_reports(tmp);
    fs::remove_all(out);
    fs::rename(tmp, out);
  } catch (...) {
    std::error_code ec;
    fs::remove_all(tmp, ec);
    throw;
  }
  return summary;
}

}  // namespace kaudit::audit
