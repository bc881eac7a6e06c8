// `kaudit merge OUT BATCH...`: batch folders (the shards of one batch made
// with `kaudit audit --shard I/N`, or any batches) joined into one batch
// folder with one summary.json and the reports, verdicts unchanged, every
// submission's evidence folder copied (or hard-linked), conflicts and
// missing shards reported (docs/scale-out.md).
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace kaudit::audit {

struct MergeOptions {
  std::filesystem::path out_dir;
  std::vector<std::filesystem::path> batches;
  // What happens when two batches hold one submission with different
  // verdicts or evidence, or one shard twice: "error" (nothing is written),
  // "first" or "last" (the batch given first or last wins; recorded).
  std::string on_conflict = "error";
  bool link = false;  // hard links instead of copies (one filesystem)
};

// Batches that cannot be joined as asked: conflicts left unresolved, shards
// of different inputs, a folder that is not a batch. Nothing is written.
struct MergeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Joins the batches into options.out_dir (written beside it and renamed, so
// that OUT is never half a batch; an existing OUT must be empty or an
// earlier merge, which is replaced) and returns its summary. Submissions of
// missing shards are listed with status `missing` and in `merge.missing`.
nlohmann::json merge_batches(const MergeOptions& options);

}  // namespace kaudit::audit
