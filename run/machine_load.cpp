#include "run/machine_load.h"

#include <sched.h>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

namespace kaudit::run {
namespace fs = std::filesystem;

namespace {

int number(const std::string& name) {
  int n = 0;
  return std::from_chars(name.data(), name.data() + name.size(), n).ec == std::errc() ? n : 0;
}

// The state field follows the command's closing parenthesis (a name may hold
// spaces and parentheses).
bool runnable(const fs::path& stat_file) {
  std::ifstream in(stat_file);
  std::string stat;
  std::getline(in, stat);
  const auto close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'R';
}

}  // namespace

int runnable_tasks_outside(const std::set<int>& pids) {
  int count = 0;
  std::error_code ec;
  for (const auto& proc : fs::directory_iterator("/proc", ec)) {
    const int pid = number(proc.path().filename().string());
    if (pid <= 0 || pids.count(pid)) continue;
    std::error_code task_ec;
    for (const auto& task : fs::directory_iterator(proc.path() / "task", task_ec))
      if (runnable(task.path() / "stat")) ++count;
  }
  return count;
}

int usable_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  return CPU_COUNT(&set) > 0 ? CPU_COUNT(&set) : 1;
}

}  // namespace kaudit::run
