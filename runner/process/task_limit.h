// How many tasks (processes and threads) a run's child and everything it
// starts may have at once: a cgroup of the pids controller of the child's
// own (cgroup v1's pids hierarchy, or v2 where kaudit's cgroup hands the
// controller down or can be made to), made where this machine lets kaudit
// make one. A fork
// bomb then meets EAGAIN at the limit instead of taking the machine, and
// every task left in the cgroup is ended when the child is.
#pragma once

#include <filesystem>
#include <string>

namespace kaudit::run {

struct TaskLimitSupport {
  bool available = false;
  std::filesystem::path parent;  // where a child's cgroup is made
  std::string kind;              // "cgroup v1" or "cgroup v2" (", threaded ...")
  std::string why_not;           // when not available
};
// Found out once per process (it makes and removes one cgroup to be sure).
const TaskLimitSupport& task_limit_support();

// Where no cgroup can hold the limit (on the H200 machine kaudit's cgroup v2
// does not hand the pids controller down): RLIMIT_NPROC, which the kernel
// counts per user in each user namespace, so a sandboxed child (uid 65534 in
// the run's own user namespace, without capabilities) gets a count of its
// run's own. Found out once per process by a trial in a user namespace of
// its own whose forks must meet EAGAIN at the limit.
struct ProcessLimitSupport {
  bool available = false;
  std::string why_not;
};
const ProcessLimitSupport& process_limit_support();

// Moves the calling process into the cgroup whose cgroup.procs is `join_file`
// (TaskLimit::join_file). Only system calls: a forked child calls it before exec.
bool join_cgroup(const char* join_file);

// One child's cgroup: made with the limit, ended (every task in it killed)
// and removed when destroyed.
class TaskLimit {
 public:
  // Throws std::runtime_error when the cgroup cannot be made.
  TaskLimit(const TaskLimitSupport& support, long max_tasks);
  ~TaskLimit();
  TaskLimit(const TaskLimit&) = delete;
  TaskLimit& operator=(const TaskLimit&) = delete;
  // The file a process writes "0" into to join (the child, before exec).
  const std::string& join_file() const { return join_file_; }
  // A threaded cgroup v2 (its parent, kaudit's own, holds processes).
  bool threaded() const { return threaded_; }

 private:
  std::filesystem::path dir_;
  std::string join_file_;
  bool threaded_ = false;
};

}  // namespace kaudit::run
