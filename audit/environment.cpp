#include "audit/environment.h"

#include "runner/process/child_process.h"
#include "common/utf8.h"

#include <sys/statvfs.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <utility>

namespace kaudit::audit {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// The runner's reason when the reference's own process ended (runner/session/reference_session.cpp).
constexpr const char* kReferenceEnded = "the reference's own process ended";

struct Pattern {
  const char* text;
  const char* cause;
};

// Messages of the C library, Python and the tools a run starts; matched as
// written, case and all, first match wins (bubblewrap's own lines first: its
// "No space left on device" is out of user namespaces, not of disk).
constexpr std::array<Pattern, 10> kMachine = {{
    {"bwrap: ", "the sandbox could not be made"},
    // The runner's own reason (runner/session/reference_session.cpp): kaudit's process, not the submission's.
    {"the reference process ended (", kReferenceEnded},
    {"No space left on device", "no space left on device"},
    {"[Errno 28]", "no space left on device"},
    {"Disk quota exceeded", "disk quota exceeded"},
    {"[Errno 122]", "disk quota exceeded"},
    {"Too many open files", "too many open files"},
    {"[Errno 24]", "too many open files"},
    {"[Errno 23]", "too many open files in the system"},
    {"Resource temporarily unavailable", "no process could be started (resource temporarily unavailable)"},
}};
constexpr std::array<Pattern, 4> kSharedDevice = {{
    {"CUDA out of memory", "device memory held by the batch's other runs"},
    {"CUDA error: out of memory", "device memory held by the batch's other runs"},
    // kaudit's own deadlines kill with "timed out" in the reason; children
    // are the OOM killer's first choice (runner/process/child_process.h).
    {"ended (signal 9 (SIGKILL))", "killed from outside the run (the kernel's OOM killer, when runs side by side "
                                   "fill the machine's memory)"},
    // The runner's own reason (runner/session/submission_session.h, holds_back_timers):
    // alone, the first call has the set-up budget while it builds, and two
    // calls' limits without a build (first_call_without_build).
    {"while other runs of the batch waited to time",
     "a first call that held the shared device, with no build running, while other runs waited to time"},
}};

std::string gib(std::uintmax_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
  return buf;
}

// A run that never started: too little space even with the machine alone.
run::RunResult short_of_space(const GuardSettings& s, std::uintmax_t free) {
  run::RunResult r;
  const std::string cause = "only " + gib(free) + " free under " + s.temp_root.string() + " (at least " +
                            gib(s.min_free_bytes) + " needed, --min-free-gib)";
  r.set_error("start", "not run: " + cause + "; this is the machine's state, not the submission's");
  r.infrastructure = evidence::InfrastructureFailure{cause, 0, static_cast<long long>(free)};
  return r;
}

}  // namespace

std::optional<std::string> environment_cause(const std::string& text, bool device_shared) {
  for (const auto& p : kMachine)
    if (text.find(p.text) != std::string::npos) return std::string(p.cause);
  if (device_shared)
    for (const auto& p : kSharedDevice)
      if (text.find(p.text) != std::string::npos) return std::string(p.cause);
  return std::nullopt;
}

std::optional<std::string> environment_cause(const run::RunResult& r, bool device_shared) {
  if (!r.error) return std::nullopt;
  std::string text = r.error->reason + "\n" + (r.error->detail.is_null() ? "" : common::json_text(r.error->detail));
  if (r.submission_process && r.submission_process->is_object())
    text += "\n" + r.submission_process->value("stderr_tail", std::string());
  // The reference's expected outputs beside the submission's calls share
  // the device too (RunOptions::expected_beside, off on the retry alone).
  return environment_cause(text, device_shared || r.expected_beside);
}

std::uintmax_t free_bytes(const fs::path& path) {
  struct statvfs st {};
  if (statvfs(path.c_str(), &st) != 0) return 0;
  return static_cast<std::uintmax_t>(st.f_bavail) * st.f_frsize;
}

fs::path workspace_root() {
  const char* tmp = std::getenv("TMPDIR");
  return tmp && *tmp ? fs::path(tmp) : fs::path("/tmp");
}

namespace {

std::optional<std::uintmax_t> meminfo_bytes(const std::string& field) {
  std::ifstream in("/proc/meminfo");
  std::string name, unit;
  std::uintmax_t kib = 0;
  while (in >> name >> kib) {
    std::getline(in, unit);
    if (name == field + ":") return kib * 1024;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::uintmax_t> available_memory_bytes() { return meminfo_bytes("MemAvailable"); }
std::optional<std::uintmax_t> total_memory_bytes() { return meminfo_bytes("MemTotal"); }

BatchGate::Hold& BatchGate::Hold::operator=(Hold&& o) noexcept {
  if (this != &o) {
    release();
    gate_ = std::exchange(o.gate_, nullptr);
    alone_ = o.alone_;
  }
  return *this;
}

void BatchGate::Hold::release() {
  if (!gate_) return;
  {
    std::lock_guard<std::mutex> lock(gate_->m_);
    if (alone_)
      gate_->alone_running_ = false;
    else
      --gate_->running_;
  }
  gate_->cv_.notify_all();
  gate_ = nullptr;
}

int BatchGate::waiting_alone() {
  std::lock_guard<std::mutex> lock(m_);
  return waiting_alone_;
}

BatchGate::Hold BatchGate::together() {
  std::unique_lock<std::mutex> lock(m_);
  cv_.wait(lock, [&] { return !alone_running_; });
  ++running_;
  return Hold(this, false);
}

BatchGate::Hold BatchGate::together_when(const std::function<bool()>& ready, std::chrono::milliseconds poll) {
  std::unique_lock<std::mutex> lock(m_);
  for (;;) {
    cv_.wait(lock, [&] { return !alone_running_; });
    if (running_ == 0 || run::children_interrupted()) break;
    lock.unlock();
    const bool now = ready();
    lock.lock();
    if (now) break;
    cv_.wait_for(lock, poll);
  }
  ++running_;
  return Hold(this, false);
}

BatchGate::Hold BatchGate::alone() {
  std::unique_lock<std::mutex> lock(m_);
  ++waiting_alone_;
  cv_.wait(lock, [&] { return !alone_running_ && running_ == 0; });
  --waiting_alone_;
  alone_running_ = true;
  return Hold(this, true);
}

run::RunResult run_guarded(const std::function<run::RunResult()>& attempt, BatchGate* gate,
                           const GuardSettings& s) {
  const auto memory_ok = [&] {
    const auto available = s.available_memory ? s.available_memory() : std::nullopt;
    return !available || *available >= s.min_free_memory_bytes;
  };
  const auto hold = [&](bool alone) {
    if (!gate) return BatchGate::Hold();
    if (alone) return gate->alone();
    return s.min_free_memory_bytes ? gate->together_when(memory_ok, s.memory_poll) : gate->together();
  };
  // Short of space: the others' workspaces go when they end.
  bool alone = free_bytes(s.temp_root) < s.min_free_bytes;
  BatchGate::Hold h = hold(alone);
  if (alone && free_bytes(s.temp_root) < s.min_free_bytes) return short_of_space(s, free_bytes(s.temp_root));
  run::RunResult first = attempt();
  const auto cause = environment_cause(first, s.device_shared);
  // An interrupted audit killed the run's children (which reads as a kill
  // the run did not send): no retry, whose first process would not start;
  // the run as it stopped says where it was (interrupted.json).
  if (!cause || run::children_interrupted()) return first;
  // Once more, with the machine to itself. Stopped before or during that
  // retry, the run keeps why it was made (interrupted.json's environment_retry).
  evidence::EnvironmentRetry retry{*cause, 1, std::nullopt};
  h.release();
  if (gate && s.on_retry_wait) s.on_retry_wait(*cause);
  h = hold(true);
  if (run::children_interrupted()) {
    first.environment_retry = retry;
    return first;
  }
  const std::uintmax_t free = free_bytes(s.temp_root);
  if (free < s.min_free_bytes) {
    first.infrastructure = evidence::InfrastructureFailure{*cause, 1, static_cast<long long>(free)};
    return first;
  }
  run::RunResult second = attempt();
  retry.attempts = 2;
  if (run::children_interrupted()) {  // its failure, if any, is the interruption's
    second.environment_retry = retry;
    return second;
  }
  const auto again = environment_cause(second, false);
  // A reference that dies again is still the machine's (or the problem's),
  // never the submission's failure.
  if (again && (*again == kReferenceEnded || free_bytes(s.temp_root) < s.min_free_bytes)) {
    second.infrastructure =
        evidence::InfrastructureFailure{*again, 2, static_cast<long long>(free_bytes(s.temp_root))};
  } else if (again) {
    // The same failure alone, with space enough: the submission's own.
    retry.judged = "the run failed for what looked like the environment (" + *again + ") twice, the second time " +
                      "with the machine to itself and " + gib(free) + " free: counted as the submission's failure";
  }
  second.environment_retry = retry;
  return second;
}

}  // namespace kaudit::audit
