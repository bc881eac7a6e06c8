// A child process the runner controls (docs/runner.md, "Child processes"):
// its own process group (killed whole on timeout or when done), a scrubbed
// environment, a fresh working folder, and a private channel: a pipe the
// runner opened, seen by the child as file descriptor `kChannelFd`, on which
// the harness writes JSON lines. stdout and stderr are drained and capped so
// that a child printing megabytes cannot block or flood the runner.
#pragma once

#include "runner/process/channel_holder.h"
#include "runner/process/syscall_filter.h"
#include "runner/process/task_limit.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace kaudit::run {

inline constexpr int kChannelFd = 3;
// Every child's /proc/self/oom_score_adj (raised only; no privilege needed):
// out of memory, the kernel ends a child, whose run is then an error, not
// kaudit with every run in flight.
inline constexpr int kChildOomScoreAdj = 800;

// Interruption (kaudit audit on SIGINT or SIGTERM; audit/interrupt.h):
// every live Child's process group is known here. interrupt_children() kills
// them all; from then on no Child starts (its constructor throws
// ChildrenInterrupted) and a Child waiting for its next message or for its
// exit stops waiting, so that the runs unwind and remove their workspaces.
struct ChildrenInterrupted : std::runtime_error {
  ChildrenInterrupted() : std::runtime_error("interrupted: no new process is started") {}
};
void interrupt_children();
bool children_interrupted();

struct ChildSpec {
  std::vector<std::string> argv;  // argv[0] is a path; no PATH search
  std::vector<std::string> env;   // the whole environment, "NAME=value"
  std::filesystem::path cwd;
  std::size_t output_cap = 64 * 1024;  // bytes kept from each of stdout and stderr (head and tail)
  // Resource limits set in the child before it starts (RLIMIT_*, value): they
  // hold for everything it starts.
  std::vector<std::pair<int, unsigned long long>> limits;
  // A syscall filter (runner/process/syscall_filter.h), loaded in the child just before
  // exec; or, with `filter_through_bwrap` (the child is bubblewrap, whose own
  // set-up needs the calls refused), handed to it at kSyscallFilterFd for its
  // --seccomp, which loads it just before bubblewrap starts the command.
  const SyscallFilter* syscall_filter = nullptr;
  bool filter_through_bwrap = false;
  // When > 0: the child joins a cgroup of its own (runner/process/task_limit.h) that
  // holds it and everything it starts to this many tasks at once.
  long max_tasks = 0;
};

// How a child ended.
struct ExitStatus {
  bool exited = false;  // true: exit code; false: killed by a signal
  int code = 0;
  int signal = 0;
  std::string describe() const;  // "exit status 0", "signal 11 (SIGSEGV)"
};

// What `next` returns: a channel message, or why there is none.
struct ChannelEvent {
  enum Kind { message, closed, timeout, bad_message } kind = closed;
  nlohmann::json body;  // for `message`
  std::string text;     // for `bad_message`: the start of the line
};

class Child {
 public:
  // Starts the child; throws std::runtime_error when it cannot.
  explicit Child(const ChildSpec& spec);
  ~Child();  // kills the process group and reaps the child
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  // Waits for the next channel line until `deadline`, draining stdout and
  // stderr meanwhile. Lines over 1 MiB are reported as bad_message.
  ChannelEvent next(std::chrono::steady_clock::time_point deadline);
  // Writes one line to the child's stdin.
  bool send_line(const std::string& line);
  // Kills the whole process group (SIGKILL).
  void kill_group();
  // Waits (at most `grace`) for the child to exit, then kills the group and
  // reaps. Drains output while waiting.
  ExitStatus finish(std::chrono::milliseconds grace);

  std::string stdout_text() const { return out_.text(); }
  std::string stderr_text() const { return err_.text(); }
  int pid() const { return pid_; }
  // The processes descending from the child now (its sandbox, the
  // interpreter, and what they started: a compiler during a build), read
  // from /proc; empty when it cannot be read.
  std::set<int> descendants() const;
  // What file descriptor kChannelFd of process `pid` (the child or one of
  // its descendants, by its id outside any namespace) is, as /proc names it,
  // which that process cannot forge (runner/process/channel_holder.h). Where /proc names
  // pipes in another form the answer is never `yes`: callers check a process
  // they trust first.
  ChannelHolder channel_held_by(int pid) const;

 private:
  struct Capture {
    std::size_t cap = 0;
    std::string head, tail;
    std::size_t total = 0;
    void add(const char* data, std::size_t n);
    std::string text() const;
  };
  // Reads what the pipes hold, waiting at most `timeout_ms`; an interruption
  // ends the wait unless `until_closed` (waiting for the pipes to close).
  void drain(int timeout_ms, bool until_closed = false);
  // Interrupted: waits (10 s at most) until every process that holds the
  // child's pipes has closed them, i.e. is gone, so that the audit does not
  // end while its children are still dying.
  void await_pipes_closed();

  std::unique_ptr<TaskLimit> task_limit_;  // what the child left in its cgroup ends with the Child
  int pid_ = -1;
  int out_fd_ = -1, err_fd_ = -1, chan_fd_ = -1, in_fd_ = -1;
  unsigned long long chan_inode_ = 0;  // the channel pipe's inode, as /proc/PID/fd names it: pipe:[INODE]
  Capture out_, err_;
  std::string chan_buf_;
  std::vector<std::string> lines_;
  bool chan_open_ = true;
  std::optional<ExitStatus> status_;
};

}  // namespace kaudit::run
