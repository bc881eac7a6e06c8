// kaudit run: one submission against one problem (docs/runner.md).
#include "app/commands.h"
#include "audit/front_end.h"
#include "runner/session/run.h"
#include "common/utf8.h"

#include <fstream>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

namespace kaudit::app {
namespace {

// The input probes in one line: how many off-grid shapes and distributions
// passed, or why the off-grid probe was skipped.
void print_input_probes(const nlohmann::json& p, std::ostream& os) {
  auto passed = [](const nlohmann::json& list) {
    int n = 0;
    for (const auto& c : list) n += c.value("status", std::string()) == "passed";
    return std::to_string(n) + " of " + std::to_string(list.size()) + " passed";
  };
  const nlohmann::json og = p.value("off_grid", nlohmann::json::object());
  os << "input probes: off-grid shapes ";
  if (og.value("status", std::string()) == "ran") os << passed(og["shapes"]);
  else os << og.value("status", std::string("not run")) << (og.contains("reason") ? " (" + og["reason"].get<std::string>() + ")" : "");
  os << "; distributions " << passed(p.value("distributions", nlohmann::json::array()));
  if (!p.value("judged", false)) os << "; not judged (" << p.value("reason", std::string()) << ")";
  os << "\n";
}

// One paragraph a person reads; the JSON document is the full answer.
void print_summary(const nlohmann::json& r, std::ostream& os) {
  os << "kaudit run: " << r["problem"]["name"].get<std::string>() << " / " << r["solution"].get<std::string>()
     << " on " << r["device"].get<std::string>() << "\n";
  os << "result: " << r["result"].get<std::string>();
  if (r["error"].is_object()) os << " (" << r["error"]["phase"].get<std::string>() << ": " << r["error"]["reason"].get<std::string>() << ")";
  else if (r.contains("result_reason")) os << " (" << r["result_reason"].get<std::string>() << ")";
  os << "\n";
  for (const auto& t : r.value("timing", nlohmann::json::array())) {
    os << "shape " << t["shape_index"] << " " << common::json_text(t["shape"]) << ":";
    for (const auto& [mode, m] : t["modes"].items()) {
      if (!m.contains("median_ms")) continue;
      os << "  " << mode << " " << m["median_ms"].get<double>() << " ms";
      if (m.contains("percent_of_peak") && m["percent_of_peak"].is_number())
        os << " (" << static_cast<int>(m["percent_of_peak"].get<double>() + 0.5) << "% of peak)";
    }
    if (t.contains("fresh_over_bench")) os << "  fresh/bench " << t["fresh_over_bench"].get<double>();
    os << "\n";
  }
  if (r.contains("input_probes")) print_input_probes(r["input_probes"], os);
  for (const auto& f : r["findings"])
    os << "[" << f["category"].get<std::string>() << "] " << f["id"].get<std::string>() << ": "
       << f["message"].get<std::string>() << "\n";
}

}  // namespace

namespace {

// What `kaudit run`'s flags hold before they become RunOptions.
struct RunFlags {
  run::RunOptions opts;
  std::string modes = "bench,fresh,rewrite", output, stress = "0.01,100";
  std::string distributions = "permuted,shifted,scaled,heavy-tailed,special,input-ends";
  std::string hardware, pack, reference_helper = "auto";
  int trials = 0;
  double setup_timeout = 0, phase_timeout = 0, call_timeout = 0;
  bool no_poison = false, quiet = false;
};

void add_input_flags(CLI::App* cmd, RunFlags& f) {
  run::RunOptions& o = f.opts;
  cmd->add_option("--problem", o.problem, "Problem folder (KernelBench-Hard or KernelBench), or a KernelBench problem .py")->required();
  cmd->add_option("--solution", o.solution, "The submission's .py file")->required();
  cmd->add_option("--device", o.device, "cuda or cpu (cpu: no tracer, wall-clock timing)")
      ->check(CLI::IsMember({"cuda", "cpu"}));
  cmd->add_option("--modes", f.modes, "Timing modes, comma-separated: bench,fresh,rewrite");
  cmd->add_flag("--trace", o.trace, "Inject libkaudit_tracer.so and add per-call trace summaries");
  cmd->add_flag("--untraced-reference", [&o](std::int64_t) { o.trace_reference = false; },
                "With --trace, leave the reference's process untraced: library-does-the-work then allows "
                "nothing for the reference's own glue");
  cmd->add_option("-o,--output", f.output, "Write the result document (JSON) here");
  cmd->add_option("--python", o.python,
                  "The interpreter to run (default: /usr/bin/python3 for cpu, python3 on PATH for cuda)");
  cmd->add_option("--seeds", o.seeds, "Correctness seeds per shape")->check(CLI::Range(1, 100));
  cmd->add_option("--stress-scales", f.stress, "Input scales of the numeric-stress cases, comma-separated ('' for none)");
  cmd->add_option("--off-grid", o.off_grid_shapes,
                  "Shapes near the graded ones to check against the reference (0: none; default 6)")
      ->check(CLI::Range(0, 100));
  cmd->add_option("--distributions", f.distributions,
                  "Input distributions to check against the reference, comma-separated ('' for none): "
                  "permuted,shifted,scaled,heavy-tailed,special,input-ends (each one-signed input moved on its own "
                  "toward the ends of its domain, each integer input set to one value)");
  cmd->add_option("--shapes", o.shapes,
                  "Graded shapes to run: all, or smallest (the one whose sizes have the smallest product)")
      ->check(CLI::IsMember({"all", "smallest"}))
      ->capture_default_str();
  cmd->add_option("--warmup", o.warmup, "Warm-up calls before each mode")->check(CLI::Range(0, 10000));
  cmd->add_option("--trials", f.trials, "Timed calls per mode (default: the problem's num_perf_trials)")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--samples", o.samples, "Timed calls per mode whose outputs are verified")
      ->check(CLI::Range(1, 1000));
}

void add_environment_flags(CLI::App* cmd, RunFlags& f) {
  run::RunOptions& o = f.opts;
  cmd->add_option("--setup-timeout", f.setup_timeout, "Seconds for import, build and set-up (default 600, cpu 120)");
  cmd->add_option("--phase-timeout", f.phase_timeout,
                  "Seconds for each shape's correctness and each timing mode (default 300, cpu 60)");
  cmd->add_option("--call-timeout", f.call_timeout,
                  "Seconds for each correctness call, at most the phase timeout (default 60)");
  cmd->add_option("--hardware", f.hardware, "A kaudit-hardware/1 file (default: chosen by the GPU's name)");
  cmd->add_option("--peak", o.peak_basis, "Peaks for % of peak: measured or datasheet")
      ->check(CLI::IsMember({"measured", "datasheet"}));
  cmd->add_option("--rules", f.pack, "Rule pack (thresholds); default: the built-in pack");
  cmd->add_option("--pass-env", o.pass_env, "Environment variables passed to the children besides the defaults");
  cmd->add_option("--harness", o.harness, "The harness file (default: next to the kaudit executable)");
  cmd->add_option("--tracer-lib", o.tracer_lib, "libkaudit_tracer.so (default: $KAUDIT_TRACER_LIB, then beside kaudit, the installed lib/kaudit/, the build tree)");
  cmd->add_flag("--keep-temp", o.keep_temp, "Keep the temporary folder; its path is in the result");
  cmd->add_flag("--no-poison", f.no_poison, "Do not poison freed memory before correctness calls");
  cmd->add_flag("-q,--quiet", f.quiet, "Print nothing but errors");
  cmd->add_option("--max-tasks", o.max_tasks,
                  "Processes and threads each child may have at once, where a cgroup or RLIMIT_NPROC can hold them")
      ->check(CLI::Range(16L, 1L << 22))
      ->capture_default_str();
  cmd->add_option("--reference-helper", f.reference_helper,
                  "The reference's helper (a second reference process for the timed samples' expected outputs): "
                  "auto (one where the run has the GPU alone, started with the first), off, with-reference or "
                  "after-inputs (one where the run has the GPU alone, started then)")
      ->check(CLI::IsMember({"auto", "off", "with-reference", "after-inputs"}))
      ->capture_default_str();
  cmd->add_flag("--unsafe-no-sandbox", o.unsafe_no_sandbox,
                "Run the submission as your own user, without the sandbox (only where none can be had; recorded)");
}

// The options the flags name; throws std::invalid_argument with the flag's complaint.
run::RunOptions options_of(const RunFlags& f) {
  run::RunOptions o = f.opts;
  o.modes = audit::split_list(f.modes);
  o.stress_scales.clear();
  for (const auto& s : audit::split_list(f.stress)) {
    try {
      o.stress_scales.push_back(std::stod(s));
    } catch (const std::exception&) {
      throw std::invalid_argument("--stress-scales: not a number: " + s);
    }
  }
  o.distributions = audit::split_list(f.distributions);
  if (f.trials > 0) o.trials = f.trials;
  if (f.setup_timeout > 0) o.setup_timeout_s = f.setup_timeout;
  if (f.phase_timeout > 0) o.phase_timeout_s = f.phase_timeout;
  if (f.call_timeout > 0) o.call_timeout_s = f.call_timeout;
  if (!f.hardware.empty()) o.hardware = f.hardware;
  if (!f.pack.empty()) o.rule_pack = f.pack;
  o.poison = !f.no_poison;
  if (f.reference_helper == "off") o.reference_helper = false;
  if (f.reference_helper == "after-inputs") o.reference_helper_start = run::RunOptions::HelperStart::after_inputs;
  return o;
}

// Writes or prints the result; the exit status: 1 when flagged, 2 when unwritable.
int emit_result(const RunFlags& f, const nlohmann::json& result) {
  if (!f.output.empty()) {
    std::ofstream out(f.output);
    out << common::json_text(result, 2) << "\n";
    if (!out) {
      std::cerr << "kaudit run: cannot write " << f.output << "\n";
      return 2;
    }
    if (!f.quiet) print_summary(result, std::cout);
  } else if (!f.quiet) {
    std::cout << common::json_text(result, 2) << "\n";
  }
  bool flagged = result["result"] != "correct";
  for (const auto& finding : result["findings"])
    if (finding["category"] == "cheat" || finding["category"] == "benchmark-aware") flagged = true;
  return flagged ? 1 : 0;
}

}  // namespace

void add_run_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("run", "Run a submission against a problem with probes and fresh-input timing");
  auto flags = std::make_shared<RunFlags>();
  add_input_flags(cmd, *flags);
  add_environment_flags(cmd, *flags);
  cmd->callback([flags, &exit_code]() {
    nlohmann::json result;
    try {
      result = run::run_submission(options_of(*flags));
    } catch (const std::exception& e) {
      std::cerr << "kaudit run: " << e.what() << "\n";
      exit_code = 2;
      return;
    }
    exit_code = emit_result(*flags, result);
  });
}

}  // namespace kaudit::app
