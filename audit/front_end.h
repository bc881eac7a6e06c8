// What both front ends of a batch (the kaudit command in app/, the Python
// module in python/) share besides run_audit: the options checked in one
// place, and the verdict documents read back in the batch's order.
#pragma once

#include "audit/audit.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace kaudit::audit {

// The non-empty items of a comma list ("0,1" -> {"0", "1"}): --gpus, and kaudit run's lists.
std::vector<std::string> split_list(const std::string& list);

// Throws std::invalid_argument, naming the flag, when an option is out of
// range: --device (auto, cuda, cpu, none), --jobs (1 to 64), --trials (1 to
// 100000), --min-free-gib (0 to 1e6).
void check_audit_options(const AuditOptions& options);

// The verdict document of each submission of a summary (OUT_DIR/<key>/
// verdict.json), in the summary's order. One whose audit failed before its
// verdict (kaudit audit prints why) has none: it gets {submission, result,
// integrity, status} from its summary entry (not-run, not-run, failed).
std::vector<nlohmann::json> batch_verdicts(const std::filesystem::path& out_dir, const nlohmann::json& summary);

}  // namespace kaudit::audit
