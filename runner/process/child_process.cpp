#include "runner/process/child_process.h"

#include "runner/process/machine_load.h"
#include "common/utf8.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <charconv>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

namespace kaudit::run {
namespace {

// In the child, before exec (async-signal-safe calls only). A value below
// the parent's own is never written: lowering it needs a privilege.
void raise_oom_score() {
  const int fd = open("/proc/self/oom_score_adj", O_RDWR | O_CLOEXEC);
  if (fd < 0) return;
  char now[16] = {};
  const ssize_t n = read(fd, now, sizeof now - 1);
  int current = 0, sign = 1;
  for (ssize_t k = 0; k < n; ++k) {
    if (now[k] == '-') sign = -1;
    else if (now[k] >= '0' && now[k] <= '9') current = current * 10 + (now[k] - '0');
  }
  if (sign * current < kChildOomScoreAdj) {
    char text[16];
    const auto end = std::to_chars(text, text + sizeof text, kChildOomScoreAdj).ptr;
    (void)!pwrite(fd, text, static_cast<std::size_t>(end - text), 0);
  }
  close(fd);
}


constexpr std::size_t kMaxLine = 1 << 20;
constexpr char kOversized = '\x01';  // marks a channel line that was too long

void make_pipe(int fds[2]) {
  if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + strerror(errno));
}

// In the child: puts `fd` at `target` without close-on-exec.
void place_fd(int fd, int target) {
  if (fd == target) {
    fcntl(fd, F_SETFD, 0);
  } else {
    dup2(fd, target);
  }
}

// In the child, before exec: loads `filter` into it, or writes the
// filter's program into a memory file at kSyscallFilterFd for bubblewrap.
// System calls only (the child of a threaded process may not allocate).
bool hand_on_syscall_filter(const SyscallFilter& filter, bool through_bwrap) {
  if (!through_bwrap) return load_syscall_filter(filter);
  const int fd = memfd_create("kaudit-syscall-filter", MFD_CLOEXEC);
  if (fd < 0) return false;
  const auto size = static_cast<ssize_t>(filter.program.size());
  if (write(fd, filter.program.data(), filter.program.size()) != size || lseek(fd, 0, SEEK_SET) != 0) return false;
  place_fd(fd, kSyscallFilterFd);
  return true;
}

void close_fd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

// The process groups of the live children, and whether they were
// interrupted. Never destroyed: workers may still reach it while the
// program exits.
struct Registry {
  std::mutex m;
  std::set<pid_t> groups;
  std::atomic<bool> interrupted{false};
  int wake[2] = {-1, -1};  // written once when interrupted: every poll on wake[0] returns
};

Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}

void forget_group(pid_t pid) {
  std::lock_guard<std::mutex> lock(registry().m);
  registry().groups.erase(pid);
}

}  // namespace

void interrupt_children() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.m);
  r.interrupted = true;
  for (const pid_t g : r.groups) ::kill(-g, SIGKILL);
  if (r.wake[1] >= 0) (void)!::write(r.wake[1], "!", 1);
}

bool children_interrupted() { return registry().interrupted.load(); }

std::string ExitStatus::describe() const {
  if (exited) return "exit status " + std::to_string(code);
  const char* name = sigabbrev_np(signal);
  return "signal " + std::to_string(signal) + (name ? std::string(" (SIG") + name + ")" : "");
}

void Child::Capture::add(const char* data, std::size_t n) {
  total += n;
  if (head.size() < cap) {
    const std::size_t take = std::min(n, cap - head.size());
    head.append(data, take);
    data += take;
    n -= take;
  }
  if (n == 0) return;
  tail.append(data, n);
  if (tail.size() > 2 * cap) tail.erase(0, tail.size() - cap);
}

std::string Child::Capture::text() const {
  std::string t = tail.size() > cap ? tail.substr(tail.size() - cap) : tail;
  if (total > head.size() + t.size())
    return head + "\n[... " + std::to_string(total - head.size() - t.size()) + " bytes left out ...]\n" + t;
  return head + t;
}

Child::Child(const ChildSpec& spec) {
  out_.cap = err_.cap = spec.output_cap;
  if (spec.argv.empty()) throw std::runtime_error("child: empty command");
  if (children_interrupted()) throw ChildrenInterrupted();
  int out[2], err[2], chan[2], in[2];
  make_pipe(out);
  make_pipe(err);
  make_pipe(chan);
  make_pipe(in);
  struct stat chan_stat{};
  if (fstat(chan[0], &chan_stat) == 0) chan_inode_ = chan_stat.st_ino;
  std::vector<char*> argv, envp;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const auto& e : spec.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const std::string cwd = spec.cwd.string();

  // Started and registered under the registry's lock, so that an
  // interruption either finds the child's group or stops it from starting.
  Registry& reg = registry();
  std::unique_lock<std::mutex> registered(reg.m);
  if (reg.interrupted) {
    for (int* fds : {out, err, chan, in}) {
      close(fds[0]);
      close(fds[1]);
    }
    throw ChildrenInterrupted();
  }
  const char* cgroup = nullptr;  // its cgroup.procs, for the child to join
  if (spec.max_tasks > 0 && task_limit_support().available) {
    task_limit_ = std::make_unique<TaskLimit>(task_limit_support(), spec.max_tasks);
    cgroup = task_limit_->join_file().c_str();
  }
  // Without the wake pipe, waits end at their deadlines instead.
  if (reg.wake[0] < 0 && pipe2(reg.wake, O_CLOEXEC) != 0) reg.wake[0] = reg.wake[1] = -1;
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error(std::string("fork: ") + strerror(errno));
  if (pid_ == 0) {
    // Only async-signal-safe calls from here to exec.
    setpgid(0, 0);
    // The audit blocks SIGINT and SIGTERM in its threads (audit/interrupt.h);
    // the child starts with none blocked, as it would from a shell.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    // Move the child's ends above the standard numbers first so that the
    // dup2s below cannot overwrite one another.
    int fds[4] = {in[0], out[1], err[1], chan[1]};
    for (int& fd : fds) {
      if (fd <= kChannelFd) {
        int moved = fcntl(fd, F_DUPFD_CLOEXEC, 10);
        fd = moved;
      }
    }
    place_fd(fds[0], 0);
    place_fd(fds[1], 1);
    place_fd(fds[2], 2);
    place_fd(fds[3], kChannelFd);
    raise_oom_score();
    if (cgroup && !join_cgroup(cgroup)) {
      const char msg[] = "kaudit: could not join the run's cgroup\n";
      (void)!write(2, msg, sizeof msg - 1);
      _exit(123);
    }
    for (const auto& [resource, value] : spec.limits) {
      const rlimit lim{static_cast<rlim_t>(value), static_cast<rlim_t>(value)};
      if (setrlimit(resource, &lim) != 0) _exit(125);
    }
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(126);
    if (spec.syscall_filter && !hand_on_syscall_filter(*spec.syscall_filter, spec.filter_through_bwrap)) {
      const char msg[] = "kaudit: could not set up the syscall filter\n";
      (void)!write(2, msg, sizeof msg - 1);
      _exit(124);
    }
    execve(argv[0], argv.data(), envp.data());
    const char msg[] = "kaudit: could not execute the interpreter\n";
    (void)!write(2, msg, sizeof msg - 1);
    _exit(127);
  }
  setpgid(pid_, pid_);  // also here, so that a kill right away reaches the group
  reg.groups.insert(pid_);
  registered.unlock();
  close(in[0]);
  close(out[1]);
  close(err[1]);
  close(chan[1]);
  in_fd_ = in[1];
  out_fd_ = out[0];
  err_fd_ = err[0];
  chan_fd_ = chan[0];
  signal(SIGPIPE, SIG_IGN);  // a child that closes stdin must not kill the runner
}

Child::~Child() {
  if (!status_) {
    forget_group(pid_);
    kill_group();
    int st = 0;
    waitpid(pid_, &st, 0);
    await_pipes_closed();
  }
  close_fd(in_fd_);
  close_fd(out_fd_);
  close_fd(err_fd_);
  close_fd(chan_fd_);
}

void Child::drain(int timeout_ms, bool until_closed) {
  pollfd fds[4];
  int n = 0;
  int* owners[3];
  for (int* fd : {&chan_fd_, &out_fd_, &err_fd_}) {
    if (*fd >= 0) {
      fds[n] = {*fd, POLLIN, 0};
      owners[n++] = fd;
    }
  }
  if (n == 0) {
    if (timeout_ms > 0 && !children_interrupted())
      std::this_thread::sleep_for(std::chrono::milliseconds(std::min(timeout_ms, 50)));
    return;
  }
  // The registry's wake pipe, readable once interrupted, ends the wait.
  const int wake = until_closed ? -1 : registry().wake[0];
  if (wake >= 0) fds[n] = {wake, POLLIN, 0};
  if (poll(fds, n + (wake >= 0 ? 1 : 0), timeout_ms) <= 0) return;
  char buf[65536];
  for (int k = 0; k < n; ++k) {
    if (!(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    const ssize_t got = read(*owners[k], buf, sizeof buf);
    if (got <= 0) {
      if (owners[k] == &chan_fd_) chan_open_ = false;
      close_fd(*owners[k]);
      continue;
    }
    if (owners[k] == &out_fd_) {
      out_.add(buf, got);
    } else if (owners[k] == &err_fd_) {
      err_.add(buf, got);
    } else {
      chan_buf_.append(buf, got);
      std::size_t start = 0;
      for (std::size_t nl; (nl = chan_buf_.find('\n', start)) != std::string::npos; start = nl + 1) {
        if (!chan_buf_.empty() && chan_buf_[start] == kOversized) continue;  // rest of a long line
        lines_.push_back(chan_buf_.substr(start, nl - start));
      }
      chan_buf_.erase(0, start);
      if (chan_buf_.size() > kMaxLine && chan_buf_[0] != kOversized) {
        lines_.push_back(std::string(1, kOversized) + common::cut_utf8(chan_buf_, 200));
        chan_buf_.assign(1, kOversized);
      } else if (!chan_buf_.empty() && chan_buf_[0] == kOversized) {
        chan_buf_.assign(1, kOversized);
      }
    }
  }
}

std::set<int> Child::descendants() const { return descendants_of(pid_); }

ChannelHolder Child::channel_held_by(int pid) const {
  return read_channel_holder(pid, kChannelFd, chan_inode_);
}

ChannelEvent Child::next(std::chrono::steady_clock::time_point deadline) {
  using clock = std::chrono::steady_clock;
  for (;;) {
    if (children_interrupted()) return {ChannelEvent::closed, {}, {}};
    if (!lines_.empty()) {
      std::string line = std::move(lines_.front());
      lines_.erase(lines_.begin());
      ChannelEvent ev;
      if (!line.empty() && line[0] == kOversized) {
        ev.kind = ChannelEvent::bad_message;
        ev.text = "a line over 1 MiB: " + common::cut_utf8(line.substr(1), 80);
        return ev;
      }
      try {
        ev.body = nlohmann::json::parse(line);
        ev.kind = ev.body.is_object() && ev.body.contains("event") && ev.body["event"].is_string()
                      ? ChannelEvent::message
                      : ChannelEvent::bad_message;
      } catch (const nlohmann::json::exception&) {
        ev.kind = ChannelEvent::bad_message;
      }
      if (ev.kind == ChannelEvent::bad_message) ev.text = common::cut_utf8(line, 200);
      return ev;
    }
    if (!chan_open_) return {ChannelEvent::closed, {}, {}};
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now()).count();
    if (left <= 0) return {ChannelEvent::timeout, {}, {}};
    drain(static_cast<int>(std::min<long long>(left, 200)));
  }
}

bool Child::send_line(const std::string& line) {
  if (in_fd_ < 0) return false;
  std::string data = line + "\n";
  const char* p = data.data();
  std::size_t left = data.size();
  while (left > 0) {
    const ssize_t n = write(in_fd_, p, left);
    if (n <= 0) return false;
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  return true;
}

void Child::kill_group() {
  if (pid_ > 0) {
    ::kill(-pid_, SIGKILL);
    if (!status_) ::kill(pid_, SIGKILL);
  }
}

void Child::await_pipes_closed() {
  if (!children_interrupted()) return;
  // Inside the sandbox, killing its outer process kills the rest through the
  // PID namespace, a moment later: each holds the pipes until it is gone.
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while ((out_fd_ >= 0 || err_fd_ >= 0 || chan_fd_ >= 0) && std::chrono::steady_clock::now() < until)
    drain(100, /*until_closed=*/true);
}

ExitStatus Child::finish(std::chrono::milliseconds grace) {
  if (status_) return *status_;
  forget_group(pid_);  // before it can be reaped: a reaped pid may be another's
  close_fd(in_fd_);
  const auto until = std::chrono::steady_clock::now() + grace;
  int st = 0;
  pid_t got = 0;
  while ((got = waitpid(pid_, &st, WNOHANG)) == 0 && std::chrono::steady_clock::now() < until &&
         !children_interrupted())
    drain(50);
  kill_group();  // whatever it left behind goes too
  if (got == 0) waitpid(pid_, &st, 0);
  // Collect what is still in the pipes; stop when nothing more comes.
  for (int k = 0; k < 100 && (out_fd_ >= 0 || err_fd_ >= 0 || chan_fd_ >= 0); ++k) drain(10);
  await_pipes_closed();
  ExitStatus s;
  if (WIFEXITED(st)) {
    s.exited = true;
    s.code = WEXITSTATUS(st);
  } else if (WIFSIGNALED(st)) {
    s.signal = WTERMSIG(st);
  }
  status_ = s;
  return s;
}

}  // namespace kaudit::run
