// Runs any command with libkaudit_tracer.so injected (CUDA_INJECTION64_PATH)
// and gathers the journal of every process it started into one trace, with
// notes on how the command ended: the work behind `kaudit trace -- COMMAND`,
// kept out of app/, which only parses and dispatches.
#pragma once

#include "tracer/trace.h"

#include <string>
#include <vector>

namespace kaudit::tracer {

struct TracedCommand {
  Trace trace;
  int wait_status = -1;  // as waitpid gives it; -1 when the command could not be started
};

// Runs `command` under `tracer_lib`, its journals in `keep_journals` (kept)
// or in a temporary folder under $TMPDIR (removed). Like system(), the
// terminal's ^C goes to the command, and the caller stays to collect what it
// left. Throws std::runtime_error when a folder cannot be made or the
// journals cannot be read.
TracedCommand run_traced_command(const std::vector<std::string>& command, const std::string& tracer_lib,
                                 const std::string& keep_journals);

}  // namespace kaudit::tracer
