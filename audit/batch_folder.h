// What keeps a batch folder safe (docs/audit.md, "One batch per folder"):
// one audit writes it at a time (OUT/.kaudit.lock), and an audit resumes it
// only when it holds the same batch (OUT/inputs.json records the inputs
// that change verdicts); anything else stops with exit status 2.
#pragma once

#include "audit/items.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace kaudit::audit {

// Held while an audit (or `kaudit verdict` over a batch) writes `dir`: an
// exclusive flock(2) on dir/.kaudit.lock, which holds the holder's pid. The
// kernel drops the lock when its holder dies, so a lock left by a killed
// audit is simply taken over.
class BatchLock {
 public:
  // Throws std::runtime_error naming the holder when another process holds it.
  explicit BatchLock(const std::filesystem::path& dir);
  ~BatchLock();
  BatchLock(const BatchLock&) = delete;
  BatchLock& operator=(const BatchLock&) = delete;

 private:
  int fd_ = -1;
};

// The run settings that change verdicts: they are recorded and compared only
// when runs are made (not with --device none).
struct RunSettings {
  std::string device;         // cuda | cpu (recorded, not compared: a batch may be finished on another device)
  std::optional<int> trials;  // --trials
  bool trace = true;          // the tracer on CUDA (--no-trace)
  bool sandbox = true;        // not --unsafe-no-sandbox
};

// The record of what a batch audits (OUT/inputs.json, schema
// kaudit-audit-inputs/1): every submission's key, path and problem folder
// (paths relative to the current folder when under it, else absolute), and
// the run settings (null with --device none).
nlohmann::json recorded_inputs(const std::vector<AuditItem>& items, const std::optional<RunSettings>& runs);

// Refuses (throws std::runtime_error saying what differs and what to do)
// when `dir` holds another batch than `inputs`: other submissions, paths or
// problems, or runs made with other settings. A folder without inputs.json
// (made by an older kaudit) is compared by its submissions' submission.json
// records; a folder holding no batch is accepted.
void check_same_batch(const std::filesystem::path& dir, const nlohmann::json& inputs);

// Writes dir/inputs.json. An audit that makes no runs (--device none) keeps
// the run settings recorded by an earlier one of the same submissions.
void write_recorded_inputs(const std::filesystem::path& dir, nlohmann::json inputs);

}  // namespace kaudit::audit
