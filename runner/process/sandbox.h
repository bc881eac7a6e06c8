// The sandbox a run's children live in (docs/threat-model.md, "Isolation").
// Each child (the submission's process and the reference's) starts through
// bubblewrap in its own user, mount, PID, network, IPC and UTS namespaces,
// as an unprivileged user with no capabilities: it sees the system's
// read-only folders, the interpreter's, and the few folders of its own run
// (everything else — the batch folder, other runs, the runner's process —
// does not exist for it), it cannot signal or trace anything outside, and
// every process it starts ends with it.
#pragma once

#include "runner/process/child_process.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace kaudit::run {

// Whether the sandbox can run here, found out once per process.
struct SandboxSupport {
  bool available = false;
  std::filesystem::path bwrap;  // the bubblewrap executable
  std::string version;          // "bubblewrap 0.8.0"
  std::string why_not;          // when not available: what is missing
  // Whether bubblewrap loads the syscall filter (runner/process/syscall_filter.h) into
  // the children here; when not, why.
  bool filters_syscalls = false;
  std::string filter_why_not;
};
// KAUDIT_BWRAP or `bwrap` on PATH, tried once with every namespace the sandbox uses.
const SandboxSupport& sandbox_support();

// What one child may see besides the system: paths mounted at the same place.
struct SandboxMounts {
  std::vector<std::filesystem::path> read_only;  // files or folders
  std::vector<std::filesystem::path> writable;   // folders
};

// The folders an interpreter reads (its prefixes and sys.path), asked of it
// once per interpreter with the environment a child gets. Throws when the
// interpreter cannot say.
std::vector<std::filesystem::path> interpreter_paths(const std::filesystem::path& python,
                                                     const std::vector<std::string>& env);

// `argv` wrapped in bubblewrap with `mounts`, starting in `cwd`; with the
// syscall filter where `support` says it loads (the child's ChildSpec then
// hands it on: sandbox_child_filter).
std::vector<std::string> sandboxed_argv(const SandboxSupport& support, const SandboxMounts& mounts,
                                        const std::filesystem::path& cwd, const std::vector<std::string>& argv);

// Sets `spec` (whose argv is sandboxed_argv's) to hand the syscall filter to
// bubblewrap where it loads here.
void sandbox_child_filter(const SandboxSupport& support, ChildSpec& spec);

// The protections a run's children had, for run.json's `isolation`.
struct Isolation {
  bool sandboxed = false;
  std::string tool;                       // "bubblewrap 0.8.0", or empty
  std::vector<std::string> protections;   // one line each
  std::string weakness;                   // what was not protected, or empty
  nlohmann::json to_json() const;
};
Isolation sandbox_isolation(const SandboxSupport& support);
// --unsafe-no-sandbox: the children run as kaudit's own user.
Isolation unsandboxed_isolation(const std::string& why);

// Resource limits set on every child before it starts (inherited by all it
// starts): no core files, and files of at most this many bytes, so that a
// submission cannot fill the disk the batch lives on.
inline constexpr unsigned long long kChildFileSizeLimit = 32ULL << 30;

}  // namespace kaudit::run
