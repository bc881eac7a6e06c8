#include "audit/batch_folder.h"

#include "evidence/json_file.h"
#include "evidence/sarif.h"
#include "evidence/schemas.h"
#include "common/utf8.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>

namespace kaudit::audit {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr const char* kLockName = ".kaudit.lock";

// A path as recorded: relative to the current folder when under it, else
// absolute; normal, '/'-separated.
std::string recorded_path(const fs::path& p) {
  std::error_code ec;
  const fs::path cwd = fs::current_path(ec);
  const std::string rel = ec ? std::string() : evidence::relative_under(p, cwd);
  if (!rel.empty()) return rel;
  return fs::absolute(p, ec).lexically_normal().generic_string();
}

// key -> {path, problem} of a record's submissions.
std::map<std::string, json> by_key(const json& submissions) {
  std::map<std::string, json> out;
  if (!submissions.is_array()) return out;
  for (const auto& s : submissions)
    if (s.is_object() && s.contains("key") && s["key"].is_string())
      out[s["key"].get<std::string>()] = {{"path", s.value("path", json())}, {"problem", s.value("problem", json())}};
  return out;
}

// The submissions a folder written by an older kaudit holds, from each
// KEY/submission.json (those the summary lists, or every one there is).
json legacy_submissions(const fs::path& dir) {
  std::vector<std::string> keys;
  const evidence::JsonDocument summary = evidence::read_json_document(dir / "summary.json");
  if (summary.status == evidence::JsonDocument::corrupt)
    throw std::runtime_error((dir / "summary.json").string() + " " + summary.error +
                             ": which batch the folder holds cannot be told; pass --force to audit these inputs into "
                             "it anyway, or audit into another folder");
  if (summary.status == evidence::JsonDocument::ok && summary.doc.contains("submissions") &&
      summary.doc["submissions"].is_array()) {
    for (const auto& e : summary.doc["submissions"])
      if (e.is_object() && e.contains("key") && e["key"].is_string()) keys.push_back(e["key"].get<std::string>());
  } else {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec))
      if (fs::is_regular_file(e.path() / "submission.json")) keys.push_back(e.path().filename().string());
  }
  json out = json::array();
  for (const auto& key : keys) {
    const auto rec = evidence::read_json_file(dir / key / "submission.json");
    json e = {{"key", key}, {"path", nullptr}, {"problem", nullptr}};
    if (rec && rec->is_object()) {
      if (const json p = rec->value("path", json()); p.is_string()) e["path"] = recorded_path(p.get<std::string>());
      if (const json p = rec->value("problem_dir", json()); p.is_string())
        e["problem"] = recorded_path(p.get<std::string>());
    }
    out.push_back(e);
  }
  return out;
}

// What differs between two lists of submissions, a few lines at most.
std::vector<std::string> submission_differences(const json& was, const json& now) {
  const auto a = by_key(was), b = by_key(now);
  std::vector<std::string> out;
  for (const auto& [key, e] : a) {
    const auto it = b.find(key);
    if (it == b.end()) {
      out.push_back(key + " is in the folder, not in these inputs");
      continue;
    }
    for (const char* field : {"path", "problem"})
      if (!e[field].is_null() && e[field] != it->second[field])
        out.push_back(key + ": " + field + " " + common::json_text(e[field]) + " in the folder, " + common::json_text(it->second[field]) +
                      " now");
  }
  for (const auto& [key, e] : b)
    if (!a.count(key)) out.push_back(key + " is new in these inputs");
  return out;
}

std::string settings_text(const json& runs) {
  if (!runs.is_object()) return "(none)";
  return std::string("--trials ") + (runs["trials"].is_null() ? "as the problem says" : common::json_text(runs["trials"])) +
         (runs.value("trace", true) ? "" : ", --no-trace") +
         (runs.value("sandbox", true) ? "" : ", --unsafe-no-sandbox");
}

}  // namespace

BatchLock::BatchLock(const fs::path& dir) {
  const fs::path file = dir / kLockName;
  fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw std::runtime_error("cannot open " + file.string() + ": " + std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    char buf[64] = {};
    const ssize_t n = ::pread(fd_, buf, sizeof buf - 1, 0);
    std::string holder = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
    ::close(fd_);
    fd_ = -1;
    if (err != EWOULDBLOCK) throw std::runtime_error("cannot lock " + file.string() + ": " + std::strerror(err));
    throw std::runtime_error(dir.string() + " is being written by another kaudit (" +
                             (holder.empty() ? std::string("pid unknown") : holder) + ", holding " + file.string() +
                             "): wait for it to end, or audit into another folder");
  }
  const std::string me = "pid " + std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, me.data(), me.size(), 0) != static_cast<ssize_t>(me.size())) {
    // The lock holds all the same; only the holder's name is missing.
  }
}

BatchLock::~BatchLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the lock; the file stays for the next holder
}

json recorded_inputs(const std::vector<AuditItem>& items, const std::optional<RunSettings>& runs) {
  json list = json::array();
  for (const auto& it : items)
    list.push_back({{"key", it.key},
                    {"path", recorded_path(it.source)},
                    {"problem", it.problem ? json(recorded_path(*it.problem)) : json(nullptr)}});
  json doc = {{"schema", evidence::kAuditInputsSchema}, {"submissions", list}, {"runs", nullptr}};
  if (runs)
    doc["runs"] = {{"device", runs->device},
                   {"trials", runs->trials ? json(*runs->trials) : json(nullptr)},
                   {"trace", runs->trace},
                   {"sandbox", runs->sandbox}};
  return doc;
}

void check_same_batch(const fs::path& dir, const json& inputs) {
  const evidence::JsonDocument rec = evidence::read_json_document(dir / "inputs.json");
  if (rec.status == evidence::JsonDocument::corrupt ||
      (rec.status == evidence::JsonDocument::ok && rec.doc.value("schema", json()) != evidence::kAuditInputsSchema))
    throw std::runtime_error((dir / "inputs.json").string() + " " +
                             (rec.error.empty() ? std::string("is not a kaudit-audit-inputs/1 record") : rec.error) +
                             ": which batch the folder holds cannot be told; pass --force to audit these inputs into "
                             "it anyway, or audit into another folder");
  const json was =
      rec.status == evidence::JsonDocument::ok ? rec.doc.value("submissions", json::array()) : legacy_submissions(dir);
  std::vector<std::string> diff = submission_differences(was, inputs["submissions"]);
  if (rec.status == evidence::JsonDocument::ok) {
    const json& old_runs = rec.doc.contains("runs") ? rec.doc["runs"] : json();
    const json& new_runs = inputs["runs"];
    if (old_runs.is_object() && new_runs.is_object() && settings_text(old_runs) != settings_text(new_runs))
      diff.push_back("its runs were made with " + settings_text(old_runs) + ", these ask for " +
                     settings_text(new_runs));
  }
  if (diff.empty() || (was.empty() && rec.status == evidence::JsonDocument::missing)) return;
  std::string what;
  for (std::size_t i = 0; i < diff.size() && i < 3; ++i) what += (i ? "; " : "") + diff[i];
  if (diff.size() > 3) what += "; and " + std::to_string(diff.size() - 3) + " more";
  throw std::runtime_error(dir.string() + " holds another batch (" + what +
                           "): audit into another folder (-o), or pass --force to redo it with these inputs");
}

void write_recorded_inputs(const fs::path& dir, json inputs) {
  const auto old = evidence::read_json_file(dir / "inputs.json");
  if (inputs["runs"].is_null() && old && old->is_object() && old->contains("runs") && (*old)["runs"].is_object() &&
      submission_differences((*old)["submissions"], inputs["submissions"]).empty())
    inputs["runs"] = (*old)["runs"];
  evidence::write_json_file(dir / "inputs.json", inputs);
}

}  // namespace kaudit::audit
