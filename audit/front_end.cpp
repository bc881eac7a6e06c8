#include "audit/front_end.h"

#include "evidence/json_file.h"

#include <sstream>
#include <stdexcept>

namespace kaudit::audit {
namespace fs = std::filesystem;
using json = nlohmann::json;

std::vector<std::string> split_list(const std::string& list) {
  std::vector<std::string> items;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) items.push_back(item);
  return items;
}

namespace {

template <class T>
void check_range(const char* flag, T value, T low, T high) {
  if (value < low || value > high) {
    std::ostringstream msg;
    msg << flag << ": " << value << " is not in " << low << " to " << high;
    throw std::invalid_argument(msg.str());
  }
}

}  // namespace

void check_audit_options(const AuditOptions& o) {
  if (o.device != "auto" && o.device != "cuda" && o.device != "cpu" && o.device != "none")
    throw std::invalid_argument("--device: '" + o.device + "' is not one of auto, cuda, cpu, none");
  check_range("--jobs", o.jobs, 1, 64);
  if (o.trials) check_range("--trials", *o.trials, 1, 100000);
  check_range("--min-free-gib", o.min_free_gib, 0.0, 1e6);
  if (o.min_free_memory_gib >= 0) check_range("--min-free-memory-gib", o.min_free_memory_gib, 0.0, 1e6);
  if (o.device_memory_gib >= 0) check_range("--device-memory-gib", o.device_memory_gib, 0.0, 1e6);
  check_range("--heartbeat", o.heartbeat_s, 0.0, 86400.0);
  check_range("--max-tasks", o.max_tasks, 16L, 1L << 22);
}

std::vector<json> batch_verdicts(const fs::path& out_dir, const json& summary) {
  std::vector<json> verdicts;
  for (const auto& e : summary.value("submissions", json::array())) {
    // A failed audit wrote no verdict: a verdict.json there is an earlier audit's.
    if (e.value("status", "") != "failed")
      if (auto v = evidence::read_json_file(out_dir / e.value("key", "") / "verdict.json")) {
        verdicts.push_back(std::move(*v));
        continue;
      }
    verdicts.push_back({{"submission", e.value("path", "")},
                        {"result", e.value("result", "not-run")},
                        {"integrity", e.value("integrity", "not-run")},
                        {"status", e.value("status", "failed")}});
  }
  return verdicts;
}

}  // namespace kaudit::audit
