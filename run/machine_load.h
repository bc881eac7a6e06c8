// How busy the machine is with work other than a run's own: the runner's
// clock around a timed call means something only when the submission's
// process could have the CPU (run/verify_timing.h).
#pragma once

#include <set>

namespace kaudit::run {

// Tasks (threads) in state R (running or waiting for a CPU) now, over every
// process but those in `pids`; read from /proc/PID/task/TID/stat.
int runnable_tasks_outside(const std::set<int>& pids);
// The processes descending from `pid` now (by each process's parent).
std::set<int> descendants_of(int pid);
// The CPUs this process may run on.
int usable_cores();

}  // namespace kaudit::run
