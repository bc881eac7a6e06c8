// Failures of the machine rather than of the submission (issue 15, item 7):
// a full disk, too many open files, a sandbox that could not be made, device
// memory that other runs of the batch held. Such a run is retried once with
// the batch to itself; what still fails for the environment is reported as
// `infrastructure-error`, apart from the submission's result. A submission
// cannot launder its own failure this way: one that fails the same way when
// it has the machine alone and space enough is judged on that failure.
#pragma once

#include "runner/plan/run_result.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

namespace kaudit::audit {

// What in `text` (an error, a traceback, a stderr tail) names an environment
// failure, or nothing. Device memory counts only when the device was shared
// with other runs (`device_shared`): alone, running out of it is the
// submission's doing.
std::optional<std::string> environment_cause(const std::string& text, bool device_shared);
// The same over a run's error, its detail and both processes' stderr; a run
// whose reference computed expected outputs beside its calls shared the
// device with them.
std::optional<std::string> environment_cause(const run::RunResult& r, bool device_shared);

// Free bytes of the file system holding `path` (0 when it cannot be read).
std::uintmax_t free_bytes(const std::filesystem::path& path);
// Where runs make their workspaces: $TMPDIR, else /tmp (runner/process/workspace.h).
std::filesystem::path workspace_root();
// The machine's available memory (/proc/meminfo's MemAvailable), its total
// (MemTotal); nothing when it cannot be read.
std::optional<std::uintmax_t> available_memory_bytes();
std::optional<std::uintmax_t> total_memory_bytes();

// Runs of a batch hold the gate together; a run that must have the machine
// to itself (a retry, a run short of space) waits until no other holds it.
// Runs not yet started go on meanwhile, so such a run goes at the end of the
// batch: on the H200 a retry of a kernel that never ended (a first call
// stopped on the shared device) held every other run back for its whole
// set-up budget when new runs waited for it.
class BatchGate {
 public:
  class Hold {
   public:
    Hold() = default;
    Hold(BatchGate* gate, bool alone) : gate_(gate), alone_(alone) {}
    Hold(Hold&& o) noexcept : gate_(o.gate_), alone_(o.alone_) { o.gate_ = nullptr; }
    Hold& operator=(Hold&& o) noexcept;
    ~Hold() { release(); }
    void release();

   private:
    BatchGate* gate_ = nullptr;
    bool alone_ = false;
  };
  Hold together();
  // together(), once `ready()` says so or no other run holds the gate;
  // `ready` is asked again every `poll` meanwhile.
  Hold together_when(const std::function<bool()>& ready, std::chrono::milliseconds poll);
  Hold alone();
  int waiting_alone();  // runs waiting in alone()

 private:
  std::mutex m_;
  std::condition_variable cv_;
  int running_ = 0;
  int waiting_alone_ = 0;
  bool alone_running_ = false;
};

struct GuardSettings {
  std::filesystem::path temp_root;   // where workspaces go
  std::uintmax_t min_free_bytes = 0;  // below it a run does not start with others
  bool device_shared = false;         // other runs use the same device
  // Host memory: a run starts beside others only while this much is
  // available (runs side by side fill it with tensors: an MoE run's
  // exchange files are tens of GB), asking again every `memory_poll`.
  std::uintmax_t min_free_memory_bytes = 0;
  std::function<std::optional<std::uintmax_t>()> available_memory = available_memory_bytes;
  std::chrono::milliseconds memory_poll{1000};
  // Told, with the first failure's cause, when a run begins to wait for the
  // batch before its retry alone (its worker's place is lent meanwhile).
  std::function<void(const std::string& cause)> on_retry_wait = nullptr;
};

// Runs `attempt` under the gate (null: no other runs) with the guard's
// checks and its one retry; returns the run to keep, with its
// `infrastructure` record set when the environment is to blame and its
// `environment_retry` record when a retry was made, or was to be made when
// the audit was interrupted ({first_cause, attempts: 1} while it waited for
// the batch, 2 when the retry itself was stopped; kept in interrupted.json).
run::RunResult run_guarded(const std::function<run::RunResult()>& attempt, BatchGate* gate,
                           const GuardSettings& settings);

}  // namespace kaudit::audit
