// How the runner starts its two children (the reference's process and the
// submission's): the harness in the interpreter, with a scrubbed
// environment and resource limits, inside the sandbox (runner/process/sandbox.h) unless
// the run was asked to go without one. Each role sees only its own folders.
#pragma once

#include "runner/process/child_process.h"
#include "runner/plan/run_plan.h"
#include "runner/process/workspace.h"

#include <filesystem>

namespace kaudit::run {

// reference_helper: a second reference process (reference_session.h), with
// the reference's folders, never traced.
enum class Role { reference, reference_helper, submission };

// Where the tracer writes `role`'s journal in a traced run.
std::filesystem::path trace_dir_of(const Workspace& ws, Role role);

// The child of `role`, reading its configuration from `config`.
ChildSpec child_spec(const RunPlan& plan, const Workspace& ws, Role role, const std::filesystem::path& config);

}  // namespace kaudit::run
