// What a child process of a run sees of the runner's environment: a
// scrubbed set of variables, its own HOME and TMPDIR, and the tracer's
// injection variables when the run is traced.
#pragma once

#include "run/run.h"

#include <filesystem>
#include <string>
#include <vector>

namespace kaudit::run {

// "NAME=value" entries for a child whose home is `home`; `tracer_lib` empty: untraced.
std::vector<std::string> child_env(const RunOptions& options, const std::filesystem::path& home,
                                   const std::filesystem::path& trace_dir, const std::filesystem::path& tracer_lib);

// The variable's value, or `fallback` when unset or empty.
std::string env_or(const char* name, const std::string& fallback);

}  // namespace kaudit::run
