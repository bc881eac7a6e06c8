// kaudit run: one submission against one problem (docs/runner.md).
#include "app/commands.h"
#include "audit/front_end.h"
#include "runner/session/run.h"
#include "common/utf8.h"

#include <fstream>
#include <iostream>

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

void add_run_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("run", "Run a submission against a problem with probes and fresh-input timing");
  auto opts = std::make_shared<run::RunOptions>();
  auto modes = std::make_shared<std::string>("bench,fresh,rewrite");
  auto output = std::make_shared<std::string>();
  auto stress = std::make_shared<std::string>("0.01,100");
  auto distributions = std::make_shared<std::string>("permuted,shifted,scaled,heavy-tailed,special,input-ends");
  auto hardware = std::make_shared<std::string>();
  auto pack = std::make_shared<std::string>();
  auto trials = std::make_shared<int>(0);
  auto setup_timeout = std::make_shared<double>(0);
  auto phase_timeout = std::make_shared<double>(0);
  auto call_timeout = std::make_shared<double>(0);
  auto no_poison = std::make_shared<bool>(false);
  auto quiet = std::make_shared<bool>(false);
  cmd->add_option("--problem", opts->problem, "Problem folder (KernelBench-Hard or KernelBench), or a KernelBench problem .py")->required();
  cmd->add_option("--solution", opts->solution, "The submission's .py file")->required();
  cmd->add_option("--device", opts->device, "cuda or cpu (cpu: no tracer, wall-clock timing)")
      ->check(CLI::IsMember({"cuda", "cpu"}));
  cmd->add_option("--modes", *modes, "Timing modes, comma-separated: bench,fresh,rewrite");
  cmd->add_flag("--trace", opts->trace, "Inject libkaudit_tracer.so and add per-call trace summaries");
  cmd->add_option("-o,--output", *output, "Write the result document (JSON) here");
  cmd->add_option("--python", opts->python,
                  "The interpreter to run (default: /usr/bin/python3 for cpu, python3 on PATH for cuda)");
  cmd->add_option("--seeds", opts->seeds, "Correctness seeds per shape")->check(CLI::Range(1, 100));
  cmd->add_option("--stress-scales", *stress, "Input scales of the numeric-stress cases, comma-separated ('' for none)");
  cmd->add_option("--off-grid", opts->off_grid_shapes,
                  "Shapes near the graded ones to check against the reference (0: none; default 6)")
      ->check(CLI::Range(0, 100));
  cmd->add_option("--distributions", *distributions,
                  "Input distributions to check against the reference, comma-separated ('' for none): "
                  "permuted,shifted,scaled,heavy-tailed,special,input-ends (each one-signed input moved on its own "
                  "toward the ends of its domain, each integer input set to one value)");
  cmd->add_option("--shapes", opts->shapes,
                  "Graded shapes to run: all, or smallest (the one whose sizes have the smallest product)")
      ->check(CLI::IsMember({"all", "smallest"}))
      ->capture_default_str();
  cmd->add_option("--warmup", opts->warmup, "Warm-up calls before each mode")->check(CLI::Range(0, 10000));
  cmd->add_option("--trials", *trials, "Timed calls per mode (default: the problem's num_perf_trials)")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--samples", opts->samples, "Timed calls per mode whose outputs are verified")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--setup-timeout", *setup_timeout, "Seconds for import, build and set-up (default 600, cpu 120)");
  cmd->add_option("--phase-timeout", *phase_timeout,
                  "Seconds for each shape's correctness and each timing mode (default 300, cpu 60)");
  cmd->add_option("--call-timeout", *call_timeout,
                  "Seconds for each correctness call, at most the phase timeout (default 60)");
  cmd->add_option("--hardware", *hardware, "A kaudit-hardware/1 file (default: chosen by the GPU's name)");
  cmd->add_option("--peak", opts->peak_basis, "Peaks for % of peak: measured or datasheet")
      ->check(CLI::IsMember({"measured", "datasheet"}));
  cmd->add_option("--rules", *pack, "Rule pack (thresholds); default: the built-in pack");
  cmd->add_option("--pass-env", opts->pass_env, "Environment variables passed to the children besides the defaults");
  cmd->add_option("--harness", opts->harness, "The harness file (default: next to the kaudit executable)");
  cmd->add_option("--tracer-lib", opts->tracer_lib, "libkaudit_tracer.so (default: $KAUDIT_TRACER_LIB, then beside kaudit, the installed lib/kaudit/, the build tree)");
  cmd->add_flag("--keep-temp", opts->keep_temp, "Keep the temporary folder; its path is in the result");
  cmd->add_flag("--no-poison", *no_poison, "Do not poison freed memory before correctness calls");
  cmd->add_flag("-q,--quiet", *quiet, "Print nothing but errors");
  cmd->add_option("--max-tasks", opts->max_tasks,
                  "Processes and threads each child may have at once, where a cgroup can hold them")
      ->check(CLI::Range(16L, 1L << 22))
      ->capture_default_str();
  cmd->add_flag("--unsafe-no-sandbox", opts->unsafe_no_sandbox,
                "Run the submission as your own user, without the sandbox (only where none can be had; recorded)");
  cmd->callback([=, &exit_code]() {
    run::RunOptions o = *opts;
    o.modes = audit::split_list(*modes);
    o.stress_scales.clear();
    for (const auto& s : audit::split_list(*stress)) {
      try {
        o.stress_scales.push_back(std::stod(s));
      } catch (const std::exception&) {
        std::cerr << "kaudit run: --stress-scales: not a number: " << s << "\n";
        exit_code = 2;
        return;
      }
    }
    o.distributions = audit::split_list(*distributions);
    if (*trials > 0) o.trials = *trials;
    if (*setup_timeout > 0) o.setup_timeout_s = *setup_timeout;
    if (*phase_timeout > 0) o.phase_timeout_s = *phase_timeout;
    if (*call_timeout > 0) o.call_timeout_s = *call_timeout;
    if (!hardware->empty()) o.hardware = *hardware;
    if (!pack->empty()) o.rule_pack = *pack;
    o.poison = !*no_poison;
    nlohmann::json result;
    try {
      result = run::run_submission(o);
    } catch (const std::exception& e) {
      std::cerr << "kaudit run: " << e.what() << "\n";
      exit_code = 2;
      return;
    }
    if (!output->empty()) {
      std::ofstream out(*output);
      out << common::json_text(result, 2) << "\n";
      if (!out) {
        std::cerr << "kaudit run: cannot write " << *output << "\n";
        exit_code = 2;
        return;
      }
    } else if (*quiet) {
      // nothing
    } else {
      std::cout << common::json_text(result, 2) << "\n";
    }
    if (!*quiet && !output->empty()) print_summary(result, std::cout);
    bool flagged = result["result"] != "correct";
    for (const auto& f : result["findings"])
      if (f["category"] == "cheat" || f["category"] == "benchmark-aware") flagged = true;
    exit_code = flagged ? 1 : 0;
  });
}

}  // namespace kaudit::app
