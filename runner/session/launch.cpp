#include "runner/session/launch.h"

#include "runner/plan/child_env.h"
#include "runner/process/resources.h"
#include "runner/process/sandbox.h"

#include <sys/resource.h>

namespace kaudit::run {
namespace fs = std::filesystem;

namespace {

bool traced(const RunPlan& plan, Role role) {
  return plan.options.trace && !plan.tracer_lib.empty() &&
         (role == Role::submission || (role == Role::reference && plan.options.trace_reference));
}

// What `role` may read and write besides the system and the interpreter.
// The submission: its working folder, its own output folder and trace, and
// the reference's inputs read-only; never the expected outputs, the
// reference's folder or the runner's configs. The reference: its working
// folder, its input and expected-output folders, the runner's configs, and
// the submission's outputs read-only.
SandboxMounts mounts_of(const RunPlan& plan, const Workspace& ws, Role role) {
  SandboxMounts m;
  m.read_only = plan.interpreter_dirs;
  for (const auto& f : harness_files(plan.harness)) m.read_only.push_back(f);
  if (const char* cuda = std::getenv("CUDA_HOME"); cuda && *cuda && fs::is_directory(cuda)) m.read_only.push_back(cuda);
  if (traced(plan, role)) m.read_only.push_back(plan.tracer_lib);
  if (role == Role::submission) {
    m.read_only.push_back(ws.submission_config_dir());
    m.read_only.push_back(ws.inputs_dir());
    m.writable = {ws.work(), ws.outputs_dir()};
  } else {
    m.read_only.push_back(ws.private_dir());
    m.read_only.push_back(ws.outputs_dir());
    m.writable = {ws.refwork(), ws.inputs_dir(), ws.expected_dir()};
  }
  if (traced(plan, role)) m.writable.push_back(trace_dir_of(ws, role));
  return m;
}

}  // namespace

fs::path trace_dir_of(const Workspace& ws, Role role) {
  return ws.root() / (role == Role::submission ? "trace" : "reference-trace");
}

ChildSpec child_spec(const RunPlan& plan, const Workspace& ws, Role role, const fs::path& config) {
  const bool sub = role == Role::submission;
  const fs::path home = sub ? ws.work() : ws.refwork();
  ChildSpec spec;
  // Both processes are traced: the submission's calls are the evidence, the
  // reference's what the problem itself spends on glue (trace_summary.h).
  spec.env = child_env(plan.options, home, trace_dir_of(ws, role), traced(plan, role) ? plan.tracer_lib : fs::path());
  spec.cwd = home;
  spec.argv = {plan.python.string(), "-B", plan.harness.string(), config.string()};
  spec.limits = {{RLIMIT_CORE, 0}, {RLIMIT_FSIZE, kChildFileSizeLimit}};
  spec.max_tasks = plan.options.max_tasks;
  if (plan.isolation.sandboxed) {
    spec.argv = sandboxed_argv(sandbox_support(), mounts_of(plan, ws, role), home, spec.argv);
    sandbox_child_filter(sandbox_support(), spec);
  } else if (syscall_filter().available()) {
    spec.syscall_filter = &syscall_filter();
  }
  return spec;
}

}  // namespace kaudit::run
