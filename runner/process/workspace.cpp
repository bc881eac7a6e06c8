#include "runner/process/workspace.h"

#include "runner/process/tensor_file.h"

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

namespace kaudit::run {
namespace fs = std::filesystem;

Workspace::Workspace() {
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = (fs::path(tmp && *tmp ? tmp : "/tmp") / "kaudit-run-XXXXXX").string();
  if (!mkdtemp(templ.data())) throw std::runtime_error("cannot create a temporary folder under " + templ);
  root_ = templ;
  for (const char* sub : {"work", "refwork", "xfer/in", "xfer/exp", "xfer/out", "private", "subcfg"})
    fs::create_directories(root_ / sub);
}

Workspace::~Workspace() {
  if (keep_) return;
  std::error_code ec;
  // A submission may have left read-only folders behind: make them writable first.
  for (auto it = fs::recursive_directory_iterator(root_, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_directory(ec) && !it->is_symlink(ec))
      fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
  }
  fs::remove_all(root_, ec);
}

namespace {
std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}
}  // namespace

FileSnapshot snapshot_files(const fs::path& dir, const std::vector<std::string>& only) {
  FileSnapshot snap;
  std::error_code ec;
  for (const auto& rel : only) {
    const fs::path p = dir / rel;
    const auto st = fs::symlink_status(p, ec);
    if (ec || !fs::exists(st)) continue;
    if (fs::is_symlink(st)) snap.files[rel] = "symlink:" + fs::read_symlink(p, ec).string();
    else if (fs::is_regular_file(st)) snap.files[rel] = read_file(p);
    else snap.files[rel] = "not a regular file";
  }
  return snap;
}

void copy_problem_files(const fs::path& from, const fs::path& to, const std::vector<std::string>& files) {
  for (const auto& rel : files) {
    const fs::path target = to / rel;
    fs::create_directories(target.parent_path());
    fs::copy_file(from / rel, target, fs::copy_options::overwrite_existing);
  }
}

nlohmann::json compare_snapshots(const FileSnapshot& before, const FileSnapshot& after) {
  auto out = nlohmann::json::array();
  auto hash = [](const std::string& s) {
    return fnv1a_hex(reinterpret_cast<const unsigned char*>(s.data()), s.size());
  };
  for (const auto& [path, content] : before.files) {
    nlohmann::json f = {{"path", path}, {"hash_before", hash(content)}};
    const auto it = after.files.find(path);
    if (it == after.files.end()) {
      f["hash_after"] = nullptr;
      f["status"] = "deleted";
    } else {
      f["hash_after"] = hash(it->second);
      f["status"] = it->second == content ? "unchanged" : "changed";
    }
    out.push_back(f);
  }
  return out;
}

namespace {
std::string stamp_of(const fs::path& p) {
  struct stat st {};
  if (::lstat(p.c_str(), &st) != 0) return "missing";
  return std::to_string(st.st_ino) + " " + std::to_string(st.st_size) + " " + std::to_string(st.st_ctim.tv_sec) +
         "." + std::to_string(st.st_ctim.tv_nsec);
}
}  // namespace

FileSeal seal_files(const fs::path& dir, const std::vector<std::string>& names) {
  FileSeal seal;
  for (const auto& n : names) seal.stamps[n] = stamp_of(dir / n);
  return seal;
}

std::vector<std::string> broken_seals(const fs::path& dir, const FileSeal& seal) {
  std::vector<std::string> out;
  for (const auto& [n, stamp] : seal.stamps)
    if (stamp_of(dir / n) != stamp) out.push_back(n);
  return out;
}

}  // namespace kaudit::run
