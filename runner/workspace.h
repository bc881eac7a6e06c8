// The temporary folders of one run: `work` (the submission's working folder,
// holding copies of the problem files and the solution), `refwork` (the
// reference's), `xfer` (tensor files) and `private` (configs). Removed when
// the Workspace goes, unless kept.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace kaudit::runner {

class Workspace {
 public:
  Workspace();  // throws std::runtime_error
  ~Workspace();
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  const std::filesystem::path& root() const { return root_; }
  std::filesystem::path work() const { return root_ / "work"; }
  std::filesystem::path refwork() const { return root_ / "refwork"; }
  std::filesystem::path xfer() const { return root_ / "xfer"; }
  std::filesystem::path private_dir() const { return root_ / "private"; }
  void keep(bool k) { keep_ = k; }

 private:
  std::filesystem::path root_;
  bool keep_ = false;
};

// Contents of regular files under `dir` (relative path -> bytes), skipping
// `skip` names at the top level. Symlinks are recorded as their target text.
struct FileSnapshot {
  std::map<std::string, std::string> files;
};
FileSnapshot snapshot_files(const std::filesystem::path& dir, const std::vector<std::string>& only);
// Copies the regular files of `from` (recursively, no symlinks, skipping
// __pycache__) into `to`.
void copy_problem_files(const std::filesystem::path& from, const std::filesystem::path& to);

// Per file: {path, hash_before, hash_after, status: unchanged|changed|deleted}.
nlohmann::json compare_snapshots(const FileSnapshot& before, const FileSnapshot& after);

}  // namespace kaudit::runner
