// `kaudit run`: one submission against one problem, in child processes the
// runner controls, checked outside the submission's process (DESIGN.md,
// "runner" and "Probes and timing"; docs/runner.md).
#pragma once

#include "runner/plan/run_options.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

namespace kaudit::run {

struct RunResult;

// Runs the protocol and returns what it found (runner/plan/run_result.h). A failing
// submission is a result ("error", "incorrect"), not an exception; throws
// std::runtime_error only for bad options or an unreadable problem.
RunResult run_protocol(const RunOptions& options);
// The same, as the result document (schema kaudit-run/1).
nlohmann::json run_submission(const RunOptions& options);

// The interpreter to use: `requested`, or the default for the device, as an
// absolute path (PATH is searched for a bare name). Throws when not found.
std::filesystem::path resolve_python(const std::string& requested, const std::string& device);

}  // namespace kaudit::run
