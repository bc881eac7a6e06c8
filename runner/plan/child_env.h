// What a child process of a run sees of the runner's environment: a
// scrubbed set of variables, its own HOME and TMPDIR, and the tracer's
// injection variables when the run is traced.
#pragma once

#include "runner/plan/run_options.h"
#include "runner/process/environment.h"

#include <filesystem>
#include <string>
#include <vector>

namespace kaudit::run {

// "NAME=value" entries for a child whose home is `home`; `tracer_lib` empty: untraced.
std::vector<std::string> child_env(const RunOptions& options, const std::filesystem::path& home,
                                   const std::filesystem::path& trace_dir, const std::filesystem::path& tracer_lib);

}  // namespace kaudit::run
