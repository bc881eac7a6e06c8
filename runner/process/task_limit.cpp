#include "runner/process/task_limit.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <vector>

namespace kaudit::run {
namespace fs = std::filesystem;

namespace {

// Writes `text` to a cgroup control file in one write: 0, or the errno the
// kernel answered with (EBUSY, EOPNOTSUPP, ... say why a controller or a
// type was refused).
int write_control(const fs::path& file, const std::string& text) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const int err = ok ? 0 : errno;
  ::close(fd);
  return err;
}

std::string read_text(const fs::path& file) {
  std::ifstream in(file);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

bool lists_pids(const fs::path& file) {
  std::istringstream words(read_text(file));
  for (std::string w; words >> w;)
    if (w == "pids") return true;
  return false;
}

// The processes with a task in the cgroup: cgroup v2 lists threads in
// cgroup.threads (cgroup.procs cannot be read in a threaded cgroup), v1
// processes in cgroup.procs. A thread is ended through its process.
std::vector<int> processes_in(const fs::path& dir) {
  const bool v2 = fs::exists(dir / "cgroup.threads");
  std::ifstream in(dir / (v2 ? "cgroup.threads" : "cgroup.procs"));
  std::vector<int> pids;
  for (int id = 0; in >> id;) {
    int process = id;
    if (v2) {
      std::ifstream status("/proc/" + std::to_string(id) + "/status");
      for (std::string line; std::getline(status, line);)
        if (line.rfind("Tgid:", 0) == 0) process = std::atoi(line.c_str() + 5);
    }
    if (process > 0 && std::find(pids.begin(), pids.end(), process) == pids.end()) pids.push_back(process);
  }
  return pids;
}

// Makes kaudit's own cgroup v2 hand the pids controller down. The controller
// only counts where no pids.max is set, so kaudit enables it where it may:
// in every ancestor that lacks it, from the hierarchy's root down, then in
// its own cgroup. That one holds processes (kaudit, the shell that started
// it), which a cgroup handing a domain controller down may not; pids is a
// threaded controller, which it may hand down as a thread root: each run's
// cgroup is then made threaded (TaskLimit). Nothing is moved and nothing
// limited but the runs' own cgroups. "" when done, else why not.
std::string enable_pids_down_to(const fs::path& mount, const fs::path& own) {
  std::vector<fs::path> chain;
  for (fs::path dir = own;; dir = dir.parent_path()) {
    chain.insert(chain.begin(), dir);
    if (dir == mount || !dir.has_relative_path() || dir == dir.parent_path()) break;
  }
  for (const fs::path& dir : chain) {
    if (lists_pids(dir / "cgroup.subtree_control")) continue;
    if (!lists_pids(dir / "cgroup.controllers")) return "the pids controller is not available in " + dir.string();
    if (const int err = write_control(dir / "cgroup.subtree_control", "+pids"))
      return "enabling it in " + dir.string() + "/cgroup.subtree_control failed (" + std::strerror(err) + ")";
  }
  return "";
}

// kaudit's own cgroup in the hierarchy that has the pids controller: the
// v1 pids hierarchy's, else the v2 one's (from /proc/self/cgroup and the
// mount table).
TaskLimitSupport find_parent() {
  TaskLimitSupport s;
  std::ifstream cgroups("/proc/self/cgroup");
  std::string line, v1_path, v2_path;
  bool have_v2 = false;
  while (std::getline(cgroups, line)) {
    const auto a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
    std::istringstream names(controllers);
    for (std::string name; std::getline(names, name, ',');)
      if (name == "pids") v1_path = path;
    if (line.rfind("0::", 0) == 0) {
      have_v2 = true;
      v2_path = path;
    }
  }
  std::ifstream mounts("/proc/self/mountinfo");
  fs::path v1_mount, v2_mount;
  while (std::getline(mounts, line)) {
    const auto dash = line.find(" - ");
    if (dash == std::string::npos) continue;
    std::istringstream pre(line.substr(0, dash)), post(line.substr(dash + 3));
    std::string id, parent, dev, root, point, type, source, options;
    pre >> id >> parent >> dev >> root >> point;
    post >> type >> source >> options;
    if (type == "cgroup" && ("," + options + ",").find(",pids,") != std::string::npos) v1_mount = point;
    if (type == "cgroup2") v2_mount = point;
  }
  if (!v1_path.empty() && !v1_mount.empty()) {
    s.parent = v1_mount / fs::path(v1_path).relative_path();
    s.kind = "cgroup v1";
  } else if (have_v2 && !v2_mount.empty()) {
    s.parent = v2_mount / fs::path(v2_path).relative_path();
    s.kind = "cgroup v2";
    // A v2 cgroup hands a controller to its children only where it lists it.
    if (const std::string why = enable_pids_down_to(v2_mount, s.parent); !why.empty()) {
      s.why_not = "kaudit's cgroup v2 (" + s.parent.string() + ") does not hand the pids controller to cgroups below it: " + why;
      return s;
    }
  } else {
    s.why_not = "no cgroup hierarchy with the pids controller is mounted";
    return s;
  }
  s.available = true;
  return s;
}

// In a forked process: forks children that wait until `limit` * 2 have
// started or one fork is refused. True when one was refused with EAGAIN
// before the process and its children passed `limit` tasks.
bool forks_refused_within(int limit) {
  int hold[2];
  if (pipe(hold) != 0) return false;
  pid_t kids[64];
  int started = 0, refused_at = -1;
  for (; started < 2 * limit && started < 64; ++started) {
    kids[started] = fork();
    if (kids[started] == 0) {
      close(hold[1]);
      char c;
      (void)!read(hold[0], &c, 1);  // until the trial closes the pipe
      _exit(0);
    }
    if (kids[started] < 0) {
      refused_at = errno == EAGAIN ? started : -2;
      break;
    }
  }
  close(hold[1]);
  for (int k = 0; k < started; ++k) waitpid(kids[k], nullptr, 0);
  return refused_at >= 0 && refused_at <= limit;
}

// A trial cgroup that a forked process joins, as a child of a run will,
// and forks in until the limit refuses it: a limit kaudit names holds.
TaskLimitSupport probe() {
  TaskLimitSupport s = find_parent();
  if (!s.available) return s;
  try {
    const TaskLimit trial(s, 8);
    if (trial.threaded()) s.kind += ", threaded (kaudit's cgroup holds processes of its own)";
    const char* join = trial.join_file().c_str();
    const pid_t pid = fork();
    if (pid == 0) _exit(!join_cgroup(join) ? 1 : forks_refused_within(8) ? 0 : 2);
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) == 1)
      throw std::runtime_error("a process cannot join a cgroup made at " + s.parent.string());
    if (WEXITSTATUS(status) != 0)
      throw std::runtime_error("pids.max was not enforced in a cgroup made at " + s.parent.string());
  } catch (const std::exception& e) {
    s.available = false;
    s.why_not = e.what();
  }
  return s;
}

// In a forked process: a user namespace of its own, RLIMIT_NPROC 4, then
// forks until one is refused. Exit 0: refused with EAGAIN within the limit.
[[noreturn]] void try_process_limit() {
  if (unshare(CLONE_NEWUSER) != 0) _exit(2);
  const rlimit lim{4, 4};
  if (setrlimit(RLIMIT_NPROC, &lim) != 0) _exit(3);
  _exit(forks_refused_within(4) ? 0 : 5);
}

ProcessLimitSupport probe_process_limit() {
  ProcessLimitSupport s;
  const pid_t pid = fork();
  if (pid == 0) try_process_limit();
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
    s.why_not = "the trial process could not be run";
    return s;
  }
  switch (WEXITSTATUS(status)) {
    case 0: s.available = true; break;
    case 2: s.why_not = "no user namespace could be made for the trial"; break;
    case 5: s.why_not = "RLIMIT_NPROC was not enforced in a user namespace"; break;
    default: s.why_not = "RLIMIT_NPROC could not be set in a user namespace"; break;
  }
  return s;
}

std::atomic<unsigned> next_id{0};

}  // namespace

bool join_cgroup(const char* join_file) {
  const int fd = open(join_file, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = write(fd, "0", 1) == 1;
  close(fd);
  return ok;
}

const TaskLimitSupport& task_limit_support() {
  static const TaskLimitSupport support = probe();
  return support;
}

const ProcessLimitSupport& process_limit_support() {
  static const ProcessLimitSupport support = probe_process_limit();
  return support;
}

TaskLimit::TaskLimit(const TaskLimitSupport& support, long max_tasks) {
  dir_ = support.parent / ("kaudit-" + std::to_string(::getpid()) + "-" + std::to_string(next_id++));
  std::error_code ec;
  if (!fs::create_directory(dir_, ec) || ec)
    throw std::runtime_error("cannot make a cgroup at " + dir_.string() + ": " +
                             (ec ? ec.message() : std::string("it exists")));
  // Below a cgroup v2 with processes of its own that hands pids down as a
  // thread root (enable_pids_down_to), a new cgroup is "domain invalid"
  // until made threaded.
  if (read_text(dir_ / "cgroup.type").rfind("domain invalid", 0) == 0) {
    threaded_ = true;
    if (const int err = write_control(dir_ / "cgroup.type", "threaded")) {
      fs::remove(dir_, ec);
      throw std::runtime_error("cannot make " + dir_.string() + " a threaded cgroup (" + std::strerror(err) + ")");
    }
  }
  if (const int err = write_control(dir_ / "pids.max", std::to_string(max_tasks))) {
    fs::remove(dir_, ec);
    throw std::runtime_error("cannot set pids.max in " + dir_.string() + " (" + std::strerror(err) + ")");
  }
  join_file_ = (dir_ / "cgroup.procs").string();
}

TaskLimit::~TaskLimit() {
  // What the child left (daemons, a second session) ends here; a task
  // killed leaves the cgroup once its parent has reaped it.
  for (int round = 0; round < 200; ++round) {
    const auto tasks = processes_in(dir_);
    if (tasks.empty()) break;
    for (const int pid : tasks) ::kill(pid, SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::rmdir(dir_.c_str());
}

}  // namespace kaudit::run
