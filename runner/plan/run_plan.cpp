#include "runner/plan/run_plan.h"

#include "runner/plan/child_env.h"
#include "runner/process/resources.h"
#include "runner/process/task_limit.h"

#include <unistd.h>

#include <algorithm>
#include <stdexcept>

namespace kaudit::run {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

void check_options(const RunOptions& o) {
  if (!fs::is_regular_file(o.solution)) throw std::runtime_error("--solution: " + o.solution.string() + " not found");
  if (o.device != "cpu" && o.device != "cuda") throw std::runtime_error("--device must be cuda or cpu");
  if (o.shapes != "all" && o.shapes != "smallest") throw std::runtime_error("--shapes must be all or smallest");
  for (const auto& m : o.modes)
    if (m != "bench" && m != "fresh" && m != "rewrite")
      throw std::runtime_error("--modes: unknown mode '" + m + "' (bench, fresh, rewrite)");
  if (o.trace && o.device != "cuda") throw std::runtime_error("--trace needs --device cuda");
  if (o.off_grid_shapes < 0) throw std::runtime_error("--off-grid must be 0 or more");
  for (const auto& d : o.distributions)
    if (d != "permuted" && d != "shifted" && d != "scaled" && d != "heavy-tailed" && d != "special" &&
        d != "input-ends")
      throw std::runtime_error("--distributions: unknown distribution '" + d +
                               "' (permuted, shifted, scaled, heavy-tailed, special, input-ends)");
}

}  // namespace

fs::path resolve_python(const std::string& requested, const std::string& device) {
  std::string name = requested.empty() ? (device == "cpu" ? "/usr/bin/python3" : "python3") : requested;
  if (name.find('/') != std::string::npos) {
    if (access(name.c_str(), X_OK) != 0) throw std::runtime_error("--python: " + name + " is not an executable");
    return fs::absolute(name);
  }
  const std::string path = env_or("PATH", "/usr/local/bin:/usr/bin:/bin");
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t end = std::min(path.find(':', start), path.size());
    const fs::path cand = fs::path(path.substr(start, end - start)) / name;
    if (!cand.parent_path().empty() && access(cand.c_str(), X_OK) == 0) return fs::absolute(cand);
    start = end + 1;
  }
  throw std::runtime_error("--python: " + name + " not found on PATH");
}

// The task limit each child had (runner/process/task_limit.h), or why it had none: a
// cgroup of its own where one can be made, else, for a sandboxed child,
// RLIMIT_NPROC counted in the run's own user namespace.
static void add_task_limit(RunPlan& plan) {
  Isolation& iso = plan.isolation;
  const long max_tasks = plan.options.max_tasks;
  const TaskLimitSupport& support = task_limit_support();
  if (max_tasks <= 0) return;
  if (support.available) {
    iso.protections.push_back(support.kind + " pids controller: at most " + std::to_string(max_tasks) +
                              " tasks (processes and threads) at once; what is left ends with the run");
    return;
  }
  if (iso.sandboxed && process_limit_support().available) {
    plan.nproc_rlimit = true;
    iso.protections.push_back("RLIMIT_NPROC: at most " + std::to_string(max_tasks) +
                              " tasks (processes and threads) of the sandbox's user in the run's own user namespace "
                              "(no cgroup: " + support.why_not + ")");
    return;
  }
  iso.weakness += (iso.weakness.empty() ? "" : "; ") + std::string("no task limit: ") + support.why_not +
                  (iso.sandboxed ? "; " + process_limit_support().why_not : std::string());
}

// The sandbox, or --unsafe-no-sandbox; without either the run is refused
// (docs/threat-model.md): a submission running as kaudit's own user could
// rewrite the evidence that judges it.
static void plan_isolation(RunPlan& plan) {
  if (plan.options.unsafe_no_sandbox) {
    plan.isolation = unsandboxed_isolation("");
    add_task_limit(plan);
    return;
  }
  const SandboxSupport& support = sandbox_support();
  if (!support.available)
    throw std::runtime_error("cannot isolate the submission: " + support.why_not +
                             ". Install bubblewrap, or pass --unsafe-no-sandbox to run submissions as your own user");
  plan.isolation = sandbox_isolation(support);
  add_task_limit(plan);
  plan.interpreter_dirs = interpreter_paths(plan.python, child_env(plan.options, "/", "/", fs::path()));
}

RunPlan make_run_plan(const RunOptions& o) {
  RunPlan plan;
  plan.options = o;
  plan.problem = rules::load_problem(o.problem);
  check_options(o);
  plan.python = resolve_python(o.python, o.device);
  plan.harness = find_harness(o.harness);
  plan.tracer_lib = o.trace ? find_tracer_library(o.tracer_lib) : fs::path();
  plan.cpu = o.device == "cpu";
  plan.setup_s = o.setup_timeout_s.value_or(plan.cpu ? 120 : 600);
  plan.phase_s = o.phase_timeout_s.value_or(plan.cpu ? 60 : 300);
  plan.call_s = std::min(plan.phase_s, o.call_timeout_s.value_or(60));
  plan.tolerance = tolerance_of(plan.problem);
  plan.trials = o.trials.value_or(0);
  if (plan.trials <= 0) {
    const auto n = plan.problem.yaml.value("num_perf_trials", json());
    plan.trials = n.is_number_integer() && n.get<int>() > 0 ? n.get<int>() : (plan.cpu ? 10 : 100);
  }
  plan.pack = o.rule_pack ? rules::load_rule_pack(*o.rule_pack) : rules::rule_pack_for_problem(plan.problem);
  if (o.rule_pack) rules::merge_problem_forbidden(plan.pack, plan.problem.forbidden);
  // Wall-clock timing on a shared CPU is noisy: --device cpu exists to run
  // the protocol, so its threshold is looser (thresholds.fresh_over_bench_cpu).
  plan.fresh_over_bench = plan.cpu ? plan.pack.thresholds.fresh_over_bench_cpu : plan.pack.thresholds.fresh_over_bench;
  plan.stress_allowance = plan.pack.thresholds.stress_mismatch_fraction;
  plan.near_miss = {plan.pack.thresholds.near_miss_fraction, plan.pack.thresholds.near_miss_elements};
  plan.format = plan.problem.format == rules::ProblemFormat::kernelbench ? "kernelbench" : "kernelbench_hard";
  // With two seeds or more the last is a bounds case (docs/runner.md, "Protocol per shape").
  for (int s = 0; s < o.seeds; ++s)
    plan.cases.push_back({1000 + s, 1.0, o.seeds >= 2 && s == o.seeds - 1 ? "bounds" : "seed"});
  for (double sc : o.stress_scales) plan.cases.push_back({1000, sc, "stress"});
  plan_isolation(plan);
  return plan;
}

json RunPlan::bounds_seeds() const {
  json out = json::array();
  for (const auto& c : cases)
    if (c.kind == "bounds") out.push_back(c.seed);
  return out;
}

json RunPlan::cases_json() const {
  json out = json::array();
  for (const auto& c : cases) out.push_back({{"seed", c.seed}, {"scale", c.scale}, {"kind", c.kind}});
  return out;
}

evidence::RunSettings RunPlan::settings() const {
  evidence::RunSettings s;
  s.seeds = options.seeds;
  s.stress_scales = options.stress_scales;
  s.warmup = options.warmup;
  s.trials = trials;
  s.samples = options.samples;
  s.tolerance = tolerance.to_json();
  s.setup_timeout_s = setup_s;
  s.phase_timeout_s = phase_s;
  s.call_timeout_s = call_s;
  s.fresh_over_bench_threshold = fresh_over_bench;
  s.stress_mismatch_fraction = stress_allowance;
  s.near_miss_fraction = near_miss.fraction;
  s.near_miss_elements = near_miss.elements;
  s.off_grid_shapes = options.off_grid_shapes;
  s.shapes.selection = options.shapes;
  s.distributions = options.distributions;
  s.trace = options.trace;
  s.trace_reference = options.trace && options.trace_reference;
  return s;
}

fs::path RunPlan::in_copy(const fs::path& copy, const fs::path& file) const {
  return copy / fs::relative(file, problem.dir);
}

}  // namespace kaudit::run
