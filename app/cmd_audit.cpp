// kaudit audit [--problem DIR] SUBMISSION... | --manifest FILE [-o OUT_DIR] [--jobs N] [--gpus LIST] [--shard I/N] ...
// kaudit verdict EVIDENCE_DIR; kaudit merge OUT BATCH...
#include "audit/audit.h"
#include "audit/front_end.h"
#include "audit/interrupt.h"
#include "audit/merge.h"
#include "app/commands.h"
#include "common/utf8.h"

#include <iostream>
#include <set>
#include <sstream>

namespace kaudit::app {
namespace {

// The lines both kaudit audit and kaudit merge end with, and their exit
// status (docs/audit.md): 1 when a submission's outcome is in --fail-on, or
// with --expect when a verdict differs from the manifest's.
int report_batch(const nlohmann::json& summary, const std::filesystem::path& out_dir,
                 const std::set<std::string>& fail_on, bool expect) {
  const auto& c = summary["counts"];
  std::cout << summary["submissions"].size() << " submission(s): " << c["clean"] << " clean, " << c["benchmark-aware"]
            << " benchmark-aware, " << c["cheat"] << " cheat, " << c["not-run"] << " not run, " << c["unverified"]
            << " unverified\n";
  if (c.value("infrastructure-error", 0) > 0)
    std::cout << c["infrastructure-error"] << " run(s) failed for the machine, not the submission "
              << "(infrastructure-error): audit the batch again to redo them\n";
  if (summary.contains("expectations"))
    std::cout << summary["expectations"]["matched"] << " of " << summary["expectations"]["of"]
              << " verdicts match the manifest\n";
  std::cout << "report: " << (out_dir / "report.html").string() << " (and report.md, summary.json)\n";
  if (expect && summary.contains("expectations"))
    return summary["expectations"]["matched"] == summary["expectations"]["of"] ? 0 : 1;
  return audit::any_fails(summary, fail_on) ? 1 : 0;
}

}  // namespace

void add_audit_command(CLI::App& app, int& exit_code) {
  struct Args {
    std::vector<std::string> submissions;
    std::string problem, manifest, gpus, shard;
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
  CLI::Option* output = cmd->add_option("-o,--output", a->options.out_dir,
                                        "batch folder for evidence, verdicts and reports (default kaudit-audit)");
  cmd->add_option("--jobs", a->options.jobs, "submissions run at once (1 to 64)")->capture_default_str();
  cmd->add_option("--gpus", a->gpus, "CUDA device ids handed to jobs round-robin, e.g. 0,1");
  cmd->add_option("--device", a->options.device, "auto (cuda when a GPU is here, else cpu), cuda, cpu, or none")
      ->capture_default_str();
  cmd->add_option("--python", a->options.python, "the interpreter that runs submissions");
  CLI::Option* trials =
      cmd->add_option("--trials", a->trials, "timed calls per mode, 1 to 100000 (default: each problem's num_perf_trials)");
  cmd->add_option("--shapes", a->options.shapes,
                  "graded shapes each run runs: all, or smallest (a run sized for a CPU; its verdict speaks for "
                  "that shape only)")
      ->check(CLI::IsMember({"all", "smallest"}))
      ->capture_default_str();
  cmd->add_flag("--force", a->options.force,
                "redo submissions already done (default: resume), also in a folder that holds another batch");
  cmd->add_flag("--no-trace", a->no_trace, "run CUDA submissions without the tracer");
  cmd->add_flag("--expect", a->expect, "exit 1 unless every verdict matches the manifest's expectation");
  cmd->add_option("--fail-on", a->fail_on,
                  "exit 1 when a submission's integrity or result is one of these (comma list of cheat, "
                  "benchmark-aware, unverified, not-run, incorrect, error, infrastructure-error)")
      ->capture_default_str();
  cmd->add_flag("-q,--quiet", a->options.quiet, "no progress lines");
  cmd->add_option("--heartbeat", a->options.heartbeat_s,
                  "seconds without a progress line after which a line names the runs in progress and their time "
                  "(0: never)")
      ->capture_default_str();
  cmd->add_option("--sarif", a->options.sarif,
                  "also write every finding of every verdict as SARIF 2.1.0 to this file (code-scanning UIs)");
  cmd->add_option("--junit", a->options.junit,
                  "also write JUnit XML to this file: one testcase per submission (CI test reports)");
  cmd->add_option("--min-free-memory-gib", a->options.min_free_memory_gib,
                  "host memory (MemAvailable) a run needs to start beside others; short of it, it waits until "
                  "there is enough or no other run is left (default: an eighth of the machine's memory)");
  cmd->add_option("--device-memory-gib", a->options.device_memory_gib,
                  "device memory the runs on one GPU may need together: a run starts beside others only while "
                  "what they need and what it needs fit (learned per problem from its runs; 0: not held back; "
                  "default: the device's memory from nvidia-smi)");
  cmd->add_option("--min-free-gib", a->options.min_free_gib,
                  "free space under $TMPDIR (or /tmp) a run needs to start beside others; short of it, it runs "
                  "alone, and not at all when even then there is too little (infrastructure-error)")
      ->capture_default_str();
  cmd->add_option("--max-tasks", a->options.max_tasks,
                  "processes and threads each child of a run may have at once, where a cgroup or RLIMIT_NPROC can hold them "
                  "(16 to 4194304)")
      ->capture_default_str();
  cmd->add_flag("--unsafe-no-sandbox", a->options.unsafe_no_sandbox,
                "run submissions as your own user, without the sandbox (only where none can be had; recorded)");
  cmd->add_option("--shard", a->shard,
                  "audit only shard I of N (numbered from 0): every N-th submission by key from the I-th, into its "
                  "own folder (default kaudit-audit.shard-I-of-N); kaudit merge joins the shards");
  cmd->callback([a, output, trials, &exit_code] {
    try {
      if (a->manifest.empty() == a->submissions.empty())
        throw CLI::ValidationError("give either submissions or --manifest");
      if (trials->count()) a->options.trials = a->trials;
      const auto fail_on = audit::parse_fail_on(a->fail_on);
      if (!a->shard.empty()) {
        a->options.shard = audit::parse_shard(a->shard);
        if (!output->count())
          a->options.out_dir = "kaudit-audit.shard-" + std::to_string(a->options.shard->index) + "-of-" +
                               std::to_string(a->options.shard->count);
      }
      a->options.trace = !a->no_trace;
      a->options.gpus = audit::split_list(a->gpus);
      audit::check_audit_options(a->options);  // the ranges, as for the Python module
      std::optional<std::filesystem::path> problem;
      if (!a->problem.empty()) problem = a->problem;
      const auto items = a->manifest.empty() ? audit::items_from_paths(a->submissions, problem) : audit::items_from_manifest(a->manifest);
      const auto summary = audit::run_audit(items, a->options);
      if (a->options.shard)
        std::cout << "shard " << a->options.shard->index << "/" << a->options.shard->count << " (numbered from 0) of "
                  << items.size() << " submission(s)\n";
      exit_code = report_batch(summary, a->options.out_dir, fail_on, a->expect);
    } catch (const audit::AuditInterrupted& e) {
      std::cerr << "kaudit audit: " << e.what() << "\n";
      exit_code = 128 + e.signal;
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

void add_merge_command(CLI::App& app, int& exit_code) {
  struct Args {
    std::string out;
    std::vector<std::string> batches;
    std::string fail_on = "cheat,benchmark-aware";
    audit::MergeOptions options;
    bool allow_missing = false, expect = false;
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("merge", "Join batch folders (the shards of one audit) into one batch folder");
  cmd->add_option("OUT", a->out, "the merged batch folder (new, empty, or an earlier merge, which is replaced)")->required();
  cmd->add_option("BATCH", a->batches, "batch folders: the shards of one batch (kaudit audit --shard), or whole batches")
      ->required();
  cmd->add_option("--on-conflict", a->options.on_conflict,
                  "when two batches hold one submission with different verdicts or evidence, or one shard twice: "
                  "error (write nothing), first or last (that batch wins; recorded)")
      ->check(CLI::IsMember({"error", "first", "last"}))
      ->capture_default_str();
  cmd->add_flag("--link", a->options.link, "hard-link the evidence files instead of copying them (one filesystem)");
  cmd->add_flag("--allow-missing", a->allow_missing,
                "a missing shard is not an error: its submissions are listed as missing (not-run)");
  cmd->add_flag("--expect", a->expect, "exit 1 unless every verdict matches the manifest's expectation");
  cmd->add_option("--fail-on", a->fail_on, "exit 1 when a submission's integrity or result is one of these (as kaudit audit)")
      ->capture_default_str();
  cmd->callback([a, &exit_code] {
    try {
      const auto fail_on = audit::parse_fail_on(a->fail_on);
      a->options.out_dir = a->out;
      a->options.batches.assign(a->batches.begin(), a->batches.end());
      const auto summary = audit::merge_batches(a->options);
      const auto& m = summary["merge"];
      for (const auto& c : m["conflicts"])
        std::cout << "conflict: " << c["why"].get<std::string>() << "; kept " << c["kept"].get<std::string>() << "\n";
      const std::size_t missing = m["missing"].size();
      if (m.contains("shards")) {
        std::cout << m["shards"]["present"].size() << " of " << m["shards"]["count"] << " shard(s) merged\n";
        if (!m["shards"]["missing"].empty())
          std::cerr << "kaudit merge: shard(s) " << common::json_text(m["shards"]["missing"]) << " (numbered from 0) of "
                    << m["shards"]["count"] << " missing, holding " << missing
                    << " submission(s): listed as missing, not-run (summary.json merge.missing)\n";
      }
      for (const auto& k : m["missing"]) std::cerr << "  missing: " << k.get<std::string>() << "\n";
      exit_code = report_batch(summary, a->out, fail_on, a->expect);
      if (missing > 0 && !a->allow_missing) {
        std::cerr << "kaudit merge: the merge is incomplete (exit status 2); audit the missing shard(s) and merge "
                     "again, or pass --allow-missing\n";
        exit_code = 2;
      }
    } catch (const std::exception& e) {
      std::cerr << "kaudit merge: " << e.what() << "\n";
      exit_code = 2;
    }
  });
}

}  // namespace kaudit::app
