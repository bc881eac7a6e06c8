// kaudit audit [--problem DIR] SUBMISSION... | --manifest FILE [-o OUT_DIR] [--jobs N] [--gpus LIST] ...
#include "audit/audit.h"
#include "audit/front_end.h"
#include "audit/interrupt.h"
#include "app/commands.h"

#include <iostream>
#include <set>
#include <sstream>

namespace kaudit::app {

void add_audit_command(CLI::App& app, int& exit_code) {
  struct Args {
    std::vector<std::string> submissions;
    std::string problem, manifest, gpus;
    std::string fail_on = "cheat,benchmark-aware";
    audit::AuditOptions options;
    int trials = 0;
    bool no_trace = false, expect = false;
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("audit", "Analyse, run, trace and judge a batch of submissions");
  cmd->add_option("SUBMISSION", a->submissions, "solution files, or folders holding them");
  cmd->add_option("--problem", a->problem, "the problem (folder, or KernelBench .py) of the given submissions");
  cmd->add_option("--manifest", a->manifest,
                  "a manifest listing submissions with their problem and expected verdict (kernels/corpus/manifest.json)");
  cmd->add_option("-o,--output", a->options.out_dir, "batch folder for evidence, verdicts and reports (default kaudit-audit)");
  cmd->add_option("--jobs", a->options.jobs, "submissions run at once (1 to 64)");
  cmd->add_option("--gpus", a->gpus, "CUDA device ids handed to jobs round-robin, e.g. 0,1");
  cmd->add_option("--device", a->options.device, "auto (cuda when a GPU is here, else cpu), cuda, cpu, or none");
  cmd->add_option("--python", a->options.python, "the interpreter that runs submissions");
  CLI::Option* trials =
      cmd->add_option("--trials", a->trials, "timed calls per mode, 1 to 100000 (default: each problem's num_perf_trials)");
  cmd->add_flag("--force", a->options.force,
                "redo submissions already done (default: resume), also in a folder that holds another batch");
  cmd->add_flag("--no-trace", a->no_trace, "run CUDA submissions without the tracer");
  cmd->add_flag("--expect", a->expect, "exit 1 unless every verdict matches the manifest's expectation");
  cmd->add_option("--fail-on", a->fail_on,
                  "exit 1 when a submission's integrity or result is one of these (comma list of cheat, "
                  "benchmark-aware, unverified, not-run, incorrect, error, infrastructure-error)")
      ->capture_default_str();
  cmd->add_flag("-q,--quiet", a->options.quiet, "no progress lines");
  cmd->add_option("--sarif", a->options.sarif,
                  "also write every finding of every verdict as SARIF 2.1.0 to this file (code-scanning UIs)");
  cmd->add_option("--junit", a->options.junit,
                  "also write JUnit XML to this file: one testcase per submission (CI test reports)");
  cmd->add_option("--min-free-gib", a->options.min_free_gib,
                  "free space under $TMPDIR (or /tmp) a run needs to start beside others; short of it, it runs "
                  "alone, and not at all when even then there is too little (infrastructure-error)")
      ->capture_default_str();
  cmd->add_flag("--unsafe-no-sandbox", a->options.unsafe_no_sandbox,
                "run submissions as your own user, without the sandbox (only where none can be had; recorded)");
  cmd->callback([a, trials, &exit_code] {
    try {
      if (a->manifest.empty() == a->submissions.empty())
        throw CLI::ValidationError("give either submissions or --manifest");
      if (trials->count()) a->options.trials = a->trials;
      std::set<std::string> fail_on;
      std::stringstream fs_list(a->fail_on);
      for (std::string f; std::getline(fs_list, f, ',');) {
        if (f.empty()) continue;
        if (!audit::fail_on_outcomes().count(f))
          throw CLI::ValidationError("--fail-on: '" + f + "' is not a verdict outcome (cheat, benchmark-aware, "
                                     "unverified, not-run, incorrect, error, infrastructure-error)");
        fail_on.insert(f);
      }
      a->options.trace = !a->no_trace;
      a->options.gpus = audit::split_list(a->gpus);
      audit::check_audit_options(a->options);  // the ranges, as for the Python module
      std::optional<std::filesystem::path> problem;
      if (!a->problem.empty()) problem = a->problem;
      const auto items = a->manifest.empty() ? audit::items_from_paths(a->submissions, problem) : audit::items_from_manifest(a->manifest);
      const auto summary = audit::run_audit(items, a->options);
      const auto& c = summary["counts"];
      std::cout << items.size() << " submission(s): " << c["clean"] << " clean, " << c["benchmark-aware"]
                << " benchmark-aware, " << c["cheat"] << " cheat, " << c["not-run"] << " not run, " << c["unverified"]
                << " unverified\n";
      if (c.value("infrastructure-error", 0) > 0)
        std::cout << c["infrastructure-error"] << " run(s) failed for the machine, not the submission "
                  << "(infrastructure-error): audit the batch again to redo them\n";
      if (summary.contains("expectations"))
        std::cout << summary["expectations"]["matched"] << " of " << summary["expectations"]["of"]
                  << " verdicts match the manifest\n";
      std::cout << "report: " << (a->options.out_dir / "report.html").string() << " (and report.md, summary.json)\n";
      exit_code = audit::any_fails(summary, fail_on) ? 1 : 0;
      if (a->expect && summary.contains("expectations"))
        exit_code = summary["expectations"]["matched"] == summary["expectations"]["of"] ? 0 : 1;
    } catch (const audit::AuditInterrupted& e) {
      std::cerr << "kaudit audit: " << e.what() << "\n";
      exit_code = 128 + e.signal;
    } catch (const CLI::ValidationError& e) {
      std::cerr << "kaudit audit: " << e.what() << "\n";
      exit_code = 2;
    } catch (const std::exception& e) {
      std::cerr << "kaudit audit: " << e.what() << "\n";
      exit_code = 2;
    }
  });
}

void add_verdict_command(CLI::App& app, int& exit_code) {
  auto dir = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("verdict", "Recompute verdicts from saved evidence (no GPU needed)");
  cmd->add_option("EVIDENCE_DIR", *dir, "a submission's evidence folder, or a whole batch folder")->required();
  cmd->callback([dir, &exit_code] {
    try {
      const auto doc = audit::recompute_verdicts(*dir);
      if (doc.contains("submissions")) {
        for (const auto& e : doc["submissions"])
          std::cout << e["key"].get<std::string>() << ": " << e["result"].get<std::string>() << ", "
                    << e["integrity"].get<std::string>() << "\n";
        const auto& c = doc["counts"];
        exit_code = c["cheat"].get<int>() + c["benchmark-aware"].get<int>() > 0 ? 1 : 0;
      } else {
        std::cout << "result: " << doc["result"].get<std::string>() << "\nintegrity: " << doc["integrity"].get<std::string>() << "\n";
        for (const auto& r : doc["reasons"]) std::cout << "  " << r.get<std::string>() << "\n";
        const std::string i = doc["integrity"];
        exit_code = i == "cheat" || i == "benchmark-aware" ? 1 : 0;
      }
    } catch (const std::exception& e) {
      std::cerr << "kaudit verdict: " << e.what() << "\n";
      exit_code = 2;
    }
  });
}

}  // namespace kaudit::app
