// How busy the machine is with work other than a run's own: the runner's
// clock around a timed call means something only when the submission's
// process could have the CPU (runner/judge/verify_timing.h).
#pragma once

#include <optional>
#include <set>

namespace kaudit::run {

// Tasks (threads) in state R (running or waiting for a CPU) now, over every
// process but those in `pids`; read from /proc/PID/task/TID/stat.
int runnable_tasks_outside(const std::set<int>& pids);
// Whether every thread of process `pid` is stopped now (state T or t in
// /proc/PID/task/TID/stat); false when none can be read.
bool all_threads_stopped(int pid);
// The processes descending from `pid` now (by each process's parent).
std::set<int> descendants_of(int pid);
// CPU time of process `pid` in clock ticks (/proc/PID/stat): its own threads'
// (utime + stime) and its reaped children's (cutime + cstime); none when the
// process is gone.
struct CpuTicks {
  unsigned long long own = 0, children = 0;
};
std::optional<CpuTicks> cpu_ticks(int pid);
// How long the main thread of process `pid` has waited, runnable, for a CPU
// since it started, in milliseconds (the second field of /proc/PID/schedstat);
// none when the process is gone or the kernel does not keep the count.
std::optional<double> runqueue_wait_ms(int pid);
// The process among `among` that its own PID namespace numbers `ns_pid` (the
// last entry of NSpid in /proc/PID/status). Where several match (a process
// in a namespace nested deeper), the one in the outermost namespace.
std::optional<int> process_with_namespace_pid(int ns_pid, const std::set<int>& among);
// The CPUs this process may run on.
int usable_cores();

}  // namespace kaudit::run
