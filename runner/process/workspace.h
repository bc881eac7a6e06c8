// The temporary folders of one run: `work` (the submission's working folder,
// holding copies of the problem files and the solution), `refwork` (the
// reference's), `xfer` (tensor files), `private` (the runner's and the
// reference's configs) and `subcfg` (the submission's configs). Removed when
// the Workspace goes, unless kept.
//
// Tensor files are named relative to `xfer`, in one of three folders that
// say who wrote them: `in/` (the reference's inputs: the submission reads
// them, read-only), `exp/` (the reference's expected outputs: the submission
// never sees them) and `out/` (the submission's outputs: the reference reads
// them, read-only). In the sandbox each child can write only its own.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace kaudit::run {

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
  std::filesystem::path submission_config_dir() const { return root_ / "subcfg"; }
  std::filesystem::path inputs_dir() const { return xfer() / "in"; }
  std::filesystem::path expected_dir() const { return xfer() / "exp"; }
  std::filesystem::path outputs_dir() const { return xfer() / "out"; }
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
// Copies `files` (paths relative to `from`, rules::problem_files) into `to`,
// making the folders they need; symlinks are copied as the files they name
// only when they are regular files.
void copy_problem_files(const std::filesystem::path& from, const std::filesystem::path& to,
                        const std::vector<std::string>& files);

// Per file: {path, hash_before, hash_after, status: unchanged|changed|deleted}.
nlohmann::json compare_snapshots(const FileSnapshot& before, const FileSnapshot& after);

// The identity of files the submission must not touch (the reference's input
// files in xfer/, which it can reach): inode, size and change time. The
// change time moves on every write, chmod or utime and no unprivileged
// process can set it back, so a stat per file tells, without reading
// gigabytes again, whether anything was done to them.
struct FileSeal {
  std::map<std::string, std::string> stamps;  // name -> "inode size ctime"
};
FileSeal seal_files(const std::filesystem::path& dir, const std::vector<std::string>& names);
// Names whose stamp differs now (changed, replaced or deleted).
std::vector<std::string> broken_seals(const std::filesystem::path& dir, const FileSeal& seal);

}  // namespace kaudit::run
