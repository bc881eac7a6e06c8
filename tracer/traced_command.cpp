#include "tracer/traced_command.h"

#include "tracer/journal_format.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace kaudit::tracer {
namespace {

namespace fs = std::filesystem;

// Forks and execs the command with the tracer injected; returns its wait
// status, or -1 when no process could be made.
int run_with_tracer(const std::vector<std::string>& command, const std::string& tracer_lib, const std::string& dir) {
  struct sigaction ignore {}, old_int {}, old_quit {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGINT, &ignore, &old_int);
  sigaction(SIGQUIT, &ignore, &old_quit);
  const pid_t child = fork();
  if (child == 0) {
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGQUIT, &old_quit, nullptr);
    setenv("CUDA_INJECTION64_PATH", tracer_lib.c_str(), 1);
    setenv(kEnvTraceDir, dir.c_str(), 1);
    unsetenv(kEnvTraceFile);
    std::vector<char*> argv;
    for (const std::string& a : command) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    std::fprintf(stderr, "kaudit trace: cannot run %s: %s\n", argv[0], std::strerror(errno));
    _exit(127);
  }
  int status = -1;
  if (child > 0)
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGQUIT, &old_quit, nullptr);
  return status;
}

std::string journal_folder(const std::string& keep_journals, bool& temporary) {
  temporary = keep_journals.empty();
  if (temporary) {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/kaudit-trace-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr)
      throw std::runtime_error(std::string("cannot make a temporary folder: ") + std::strerror(errno));
    return fs::absolute(pattern).string();
  }
  std::error_code ec;
  if (!fs::create_directories(keep_journals, ec) && ec)
    throw std::runtime_error("cannot make " + keep_journals + ": " + ec.message());
  return fs::absolute(keep_journals).string();
}

// What the trace says of how the command ended and of what it saw.
void note_ending(Trace& trace, int status, const char* previous_injection) {
  if (status >= 0) trace.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (status >= 0 && WIFSIGNALED(status))
    trace.notes.push_back({"loss", "the command was killed by signal " + std::to_string(WTERMSIG(status))});
  if (previous_injection != nullptr && *previous_injection != '\0')
    trace.notes.push_back({"warning", std::string("CUDA_INJECTION64_PATH was set to ") + previous_injection +
                                          "; kaudit replaced it for the command"});
  bool any_cuda = false;
  for (const Process& p : trace.processes) any_cuda = any_cuda || p.cupti_seen;
  if (!any_cuda) {
    std::string why = "no process of the command initialised CUDA under the tracer";
    std::error_code ec;
    if (!fs::exists("/dev/nvidiactl", ec)) why += " (this machine has no NVIDIA device: /dev/nvidiactl is missing)";
    trace.notes.push_back({"info", why});
  }
}

}  // namespace

TracedCommand run_traced_command(const std::vector<std::string>& command, const std::string& tracer_lib,
                                 const std::string& keep_journals) {
  bool temporary = false;
  const std::string dir = journal_folder(keep_journals, temporary);
  const char* previous = std::getenv("CUDA_INJECTION64_PATH");
  TracedCommand out;
  out.wait_status = run_with_tracer(command, tracer_lib, dir);
  std::error_code ec;
  try {
    out.trace = load_journal_dir(dir);
  } catch (...) {
    if (temporary) fs::remove_all(dir, ec);
    throw;
  }
  out.trace.command = command;
  note_ending(out.trace, out.wait_status, previous);
  if (temporary) fs::remove_all(dir, ec);
  return out;
}

}  // namespace kaudit::tracer
