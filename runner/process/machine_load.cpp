#include "runner/process/machine_load.h"

#include <sched.h>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

namespace kaudit::run {
namespace fs = std::filesystem;

namespace {

int number(const std::string& name) {
  int n = 0;
  return std::from_chars(name.data(), name.data() + name.size(), n).ec == std::errc() ? n : 0;
}

// The fields of a /proc stat file after the command's closing parenthesis
// (a name may hold spaces and parentheses): state, parent, ...; empty when
// it cannot be read.
std::string fields_after_command(const fs::path& stat_file) {
  std::ifstream in(stat_file);
  std::string stat;
  std::getline(in, stat);
  const auto close = stat.rfind(')');
  return close == std::string::npos || close + 2 > stat.size() ? std::string() : stat.substr(close + 2);
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
      if (fields_after_command(task.path() / "stat").rfind('R', 0) == 0) ++count;
  }
  return count;
}

bool all_threads_stopped(int pid) {
  int seen = 0;
  std::error_code ec;
  for (const auto& task : fs::directory_iterator(fs::path("/proc") / std::to_string(pid) / "task", ec)) {
    const std::string fields = fields_after_command(task.path() / "stat");
    if (fields.empty() || (fields[0] != 'T' && fields[0] != 't')) return false;
    ++seen;
  }
  return seen > 0;
}

std::set<int> descendants_of(int pid) {
  std::map<int, std::vector<int>> children;
  std::error_code ec;
  for (const auto& proc : fs::directory_iterator("/proc", ec)) {
    const int p = number(proc.path().filename().string());
    if (p <= 0) continue;
    std::istringstream fields(fields_after_command(proc.path() / "stat"));
    std::string state;
    int parent = 0;
    if (fields >> state >> parent) children[parent].push_back(p);
  }
  std::set<int> found;
  std::vector<int> todo = {pid};
  while (!todo.empty()) {
    const int p = todo.back();
    todo.pop_back();
    for (const int c : children[p])
      if (found.insert(c).second) todo.push_back(c);
  }
  return found;
}

std::optional<CpuTicks> cpu_ticks(int pid) {
  std::istringstream fields(fields_after_command(fs::path("/proc") / std::to_string(pid) / "stat"));
  std::string field;
  // After the command: state, ppid, pgrp, session, tty, tpgid, flags,
  // minflt, cminflt, majflt, cmajflt, then utime, stime, cutime, cstime.
  for (int k = 0; k < 11; ++k)
    if (!(fields >> field)) return std::nullopt;
  unsigned long long utime = 0, stime = 0, cutime = 0, cstime = 0;
  if (!(fields >> utime >> stime >> cutime >> cstime)) return std::nullopt;
  return CpuTicks{utime + stime, cutime + cstime};
}

std::optional<double> runqueue_wait_ms(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/schedstat");
  unsigned long long on_cpu_ns = 0, waiting_ns = 0;
  if (!(in >> on_cpu_ns >> waiting_ns)) return std::nullopt;
  return static_cast<double>(waiting_ns) / 1e6;
}

std::optional<int> process_with_namespace_pid(int ns_pid, const std::set<int>& among) {
  std::optional<int> found;
  std::size_t found_depth = 0;
  for (const int pid : among) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("NSpid:", 0) != 0) continue;
      std::istringstream ids(line.substr(6));
      std::vector<int> chain;
      for (int id = 0; ids >> id;) chain.push_back(id);
      if (!chain.empty() && chain.back() == ns_pid && (!found || chain.size() < found_depth)) {
        found = pid;
        found_depth = chain.size();
      }
      break;
    }
  }
  return found;
}

int usable_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  return CPU_COUNT(&set) > 0 ? CPU_COUNT(&set) : 1;
}

}  // namespace kaudit::run
