#include "runner/process/sandbox.h"

#include "common/utf8.h"
#include "runner/process/environment.h"
#include "runner/process/child_process.h"
#include "runner/process/syscall_filter.h"

#include <unistd.h>

#include <map>
#include <mutex>
#include <set>
#include <stdexcept>

namespace kaudit::run {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// The unprivileged user a child runs as inside its user namespace.
constexpr const char* kSandboxUid = "65534";

// Read-only system folders every child sees (those that exist); a top-level
// link (merged /usr: /lib -> usr/lib) is recreated as a link.
const std::vector<std::string> kSystemPaths = {"/usr", "/etc", "/opt", "/bin", "/sbin", "/lib",
                                               "/lib32", "/lib64", "/libx32", "/sys"};
// Files under those that a child must not read.
const std::vector<std::string> kMaskedFiles = {"/etc/shadow", "/etc/gshadow", "/etc/sudoers"};

// Runs `argv` (a sandboxed one when `sandbox` is given) and returns its stdout.
std::string run_and_read(const std::vector<std::string>& argv, const std::vector<std::string>& env, int& status,
                         std::string& err, const SandboxSupport* sandbox = nullptr) {
  ChildSpec spec{argv, env, fs::path("/"), 64 * 1024, {}};
  if (sandbox) sandbox_child_filter(*sandbox, spec);
  Child child(spec);
  const ExitStatus st = child.finish(std::chrono::seconds(60));
  status = st.exited ? st.code : 128 + st.signal;
  err = child.stderr_text();
  return child.stdout_text();
}

fs::path find_bwrap() {
  const std::string requested = env_or("KAUDIT_BWRAP", "");
  if (!requested.empty()) return requested;
  const std::string path = env_or("PATH", "/usr/local/bin:/usr/bin:/bin");
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t end = std::min(path.find(':', start), path.size());
    const fs::path candidate = fs::path(path.substr(start, end - start)) / "bwrap";
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return {};
}

bool covered_by(const fs::path& p, const std::vector<fs::path>& roots) {
  for (const auto& r : roots) {
    const auto rel = p.lexically_relative(r);
    if (!rel.empty() && *rel.begin() != "..") return true;
  }
  return false;
}

SandboxSupport probe_support() {
  SandboxSupport s;
  s.bwrap = find_bwrap();
  if (s.bwrap.empty()) {
    s.why_not = "bubblewrap (bwrap) is not installed (Debian: apt-get install bubblewrap; or set KAUDIT_BWRAP)";
    return s;
  }
  const std::vector<std::string> env = {"PATH=/usr/bin:/bin"};
  int status = 0;
  std::string err;
  s.version = run_and_read({s.bwrap.string(), "--version"}, env, status, err);
  while (!s.version.empty() && (s.version.back() == '\n' || s.version.back() == ' ')) s.version.pop_back();
  if (status != 0) {
    s.why_not = s.bwrap.string() + " --version failed: " + err;
    return s;
  }
  // The same namespaces, user and syscall filter a run uses, on a trivial
  // command; without the filter where it does not load.
  const SandboxMounts none;
  s.filters_syscalls = syscall_filter().available();
  if (!s.filters_syscalls) s.filter_why_not = syscall_filter().why_not;
  run_and_read(sandboxed_argv(s, none, "/", {"/bin/true"}), env, status, err, &s);
  if (status != 0 && s.filters_syscalls) {
    s.filters_syscalls = false;
    s.filter_why_not = "bubblewrap could not load the seccomp filter here (" + common::cut_utf8(err, 300) + ")";
    run_and_read(sandboxed_argv(s, none, "/", {"/bin/true"}), env, status, err, &s);
  }
  if (status != 0) {
    s.why_not = "bubblewrap cannot create the sandbox's namespaces here (" + common::cut_utf8(err, 300) +
                "); unprivileged user namespaces may be disabled";
    return s;
  }
  s.available = true;
  return s;
}

}  // namespace

const SandboxSupport& sandbox_support() {
  static const SandboxSupport support = probe_support();
  return support;
}

std::vector<fs::path> interpreter_paths(const fs::path& python, const std::vector<std::string>& env) {
  static std::mutex mu;
  static std::map<fs::path, std::vector<fs::path>> cache;
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = cache.find(python); it != cache.end()) return it->second;
  int status = 0;
  std::string err;
  const std::string out = run_and_read(
      {python.string(), "-E", "-s", "-c",
       "import sys, json; print(json.dumps([sys.prefix, sys.base_prefix, sys.exec_prefix] + sys.path))"},
      env, status, err);
  json list;
  try {
    list = json::parse(out);
  } catch (const json::exception&) {
  }
  if (status != 0 || !list.is_array())
    throw std::runtime_error(python.string() + " could not list the folders it reads: " + common::cut_utf8(err, 500));
  std::vector<fs::path> paths = {fs::weakly_canonical(python).parent_path()};
  for (const auto& p : list) {
    if (!p.is_string() || p.get<std::string>().empty()) continue;
    std::error_code ec;
    const fs::path canonical = fs::canonical(p.get<std::string>(), ec);
    if (!ec && fs::is_directory(canonical, ec)) paths.push_back(canonical);
  }
  cache[python] = paths;
  return paths;
}

std::vector<std::string> sandboxed_argv(const SandboxSupport& support, const SandboxMounts& mounts, const fs::path& cwd,
                                        const std::vector<std::string>& argv) {
  std::vector<std::string> a = {support.bwrap.string(), "--unshare-all", "--die-with-parent", "--new-session",
                                "--uid", kSandboxUid, "--gid", kSandboxUid, "--cap-drop", "ALL",
                                "--hostname", "kaudit-sandbox"};
  if (support.filters_syscalls) a.insert(a.end(), {"--seccomp", std::to_string(kSyscallFilterFd)});
  std::vector<fs::path> system;
  for (const auto& p : kSystemPaths) {
    std::error_code ec;
    const auto st = fs::symlink_status(p, ec);
    if (ec || !fs::exists(st)) continue;
    if (fs::is_symlink(st)) {
      a.insert(a.end(), {"--symlink", fs::read_symlink(p, ec).string(), p});
    } else {
      a.insert(a.end(), {"--ro-bind", p, p});
      system.push_back(p);
    }
  }
  for (const auto& f : kMaskedFiles)
    if (fs::exists(f)) a.insert(a.end(), {"--ro-bind", "/dev/null", f});
  a.insert(a.end(), {"--proc", "/proc", "--dev", "/dev", "--tmpfs", "/dev/shm", "--tmpfs", "/tmp"});
  // The GPU: NVIDIA's device files, as they are.
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/dev", ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("nvidia", 0) == 0) a.insert(a.end(), {"--dev-bind", e.path().string(), e.path().string()});
  }
  std::set<fs::path> seen;
  for (const auto& p : mounts.read_only)
    if (!covered_by(p, system) && seen.insert(p).second) a.insert(a.end(), {"--ro-bind", p.string(), p.string()});
  for (const auto& p : mounts.writable) a.insert(a.end(), {"--bind", p.string(), p.string()});
  a.insert(a.end(), {"--chdir", cwd.string(), "--"});
  a.insert(a.end(), argv.begin(), argv.end());
  return a;
}

void sandbox_child_filter(const SandboxSupport& support, ChildSpec& spec) {
  if (!support.filters_syscalls) return;
  spec.syscall_filter = &syscall_filter();
  spec.filter_through_bwrap = true;
}

static std::string rlimit_text() {
  return "rlimits: no core files, files of at most " + std::to_string(kChildFileSizeLimit >> 30) + " GiB";
}

json Isolation::to_json() const {
  json j = {{"sandboxed", sandboxed}, {"protections", protections}};
  if (!tool.empty()) j["tool"] = tool;
  if (!weakness.empty()) j["weakness"] = weakness;
  return j;
}

Isolation sandbox_isolation(const SandboxSupport& support) {
  Isolation iso;
  iso.sandboxed = true;
  iso.tool = support.version;
  iso.protections = {
      std::string("user namespace: uid ") + kSandboxUid + ", no capabilities",
      "mount namespace: system folders read-only; only the run's own working, output and trace folders writable; "
      "the reference's expected outputs, other runs and the batch folder absent",
      "PID namespace: the runner and other runs cannot be seen, signalled or traced; every process ends with the run",
      "no network (network namespace)",
      "IPC and UTS namespaces",
      "scrubbed environment; per-run Triton and torch extension caches",
      rlimit_text()};
  if (support.filters_syscalls)
    iso.protections.push_back(syscall_filter().description());
  else
    iso.weakness = "no syscall filter: " + support.filter_why_not;
  return iso;
}

Isolation unsandboxed_isolation(const std::string& why) {
  Isolation iso;
  iso.protections = {"own process group, killed when the run ends", "scrubbed environment", rlimit_text()};
  if (syscall_filter().available()) iso.protections.push_back(syscall_filter().description());
  iso.weakness = "--unsafe-no-sandbox: the submission ran as kaudit's own user and could read and write what "
                 "kaudit can (its evidence, other runs, the problem folders) and signal the runner" +
                 (why.empty() ? std::string() : " (" + why + ")");
  return iso;
}

}  // namespace kaudit::run
