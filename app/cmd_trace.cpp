// kaudit trace [-o trace.json] [--chrome trace.chrome.json] -- COMMAND...
// Runs any command under libkaudit_tracer.so (tracer/traced_command.h) and
// writes the trace document, the Chrome trace, and a short summary (on
// stderr, so that the command's own stdout stays clean).
#include "app/commands.h"

#include "runner/process/resources.h"
#include "common/utf8.h"
#include "tracer/chrome_trace.h"
#include "tracer/families.h"
#include "tracer/report.h"
#include "tracer/trace.h"
#include "tracer/traced_command.h"

#include <CLI/CLI.hpp>

#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

namespace kaudit::app {
namespace {

struct TraceOptions {
  std::string output;
  std::string chrome;
  std::string families;
  std::string tracer_lib;
  std::string keep_journals;
  std::string input;
  bool quiet = false;
};

// Writes the trace document and the Chrome trace where asked, and prints
// the summary. Returns 0, or 2 when a file cannot be written.
int write_outputs(const TraceOptions& opt, const tracer::Trace& trace, const tracer::Families& families) {
  int rc = 0;
  try {
    if (!opt.output.empty()) {
      std::ofstream out(opt.output);
      out << common::json_text(tracer::to_json(trace, &families), 1) << "\n";
      if (!out) throw std::runtime_error("cannot write " + opt.output);
    }
    if (!opt.chrome.empty()) {
      std::ofstream out(opt.chrome);
      out << common::json_text(tracer::chrome_trace(trace, families)) << "\n";
      if (!out) throw std::runtime_error("cannot write " + opt.chrome);
    }
  } catch (const std::exception& e) {
    std::cerr << "kaudit trace: " << e.what() << "\n";
    rc = 2;
  }
  if (!opt.quiet) std::cerr << (opt.input.empty() ? "\n" : "") << tracer::text_summary(trace, families);
  return rc;
}

int trace_command(const TraceOptions& opt, std::vector<std::string> command) {
  if (!command.empty() && command.front() == "--") command.erase(command.begin());
  if (command.empty() == opt.input.empty()) {
    std::cerr << "kaudit trace: give a command (kaudit trace [options] -- COMMAND...) or --input FILE, not both\n";
    return 2;
  }
  std::unique_ptr<tracer::Families> custom;
  try {
    if (!opt.families.empty()) custom = std::make_unique<tracer::Families>(tracer::Families::load(opt.families));
  } catch (const std::exception& e) {
    std::cerr << "kaudit trace: " << e.what() << "\n";
    return 2;
  }
  const tracer::Families& families = custom ? *custom : tracer::Families::builtin();
  if (!opt.input.empty()) {
    try {
      return write_outputs(opt, tracer::load_trace_file(opt.input), families);
    } catch (const std::exception& e) {
      std::cerr << "kaudit trace: " << e.what() << "\n";
      return 2;
    }
  }
  std::string lib;
  try {
    lib = run::find_tracer_library(opt.tracer_lib).string();
  } catch (const std::exception& e) {
    std::cerr << "kaudit trace: " << e.what() << "\n";
    return 2;
  }

  tracer::TracedCommand ran;
  try {
    ran = tracer::run_traced_command(command, lib, opt.keep_journals);
  } catch (const std::exception& e) {
    std::cerr << "kaudit trace: " << e.what() << "\n";
    return 2;
  }
  const int status = ran.wait_status;
  const tracer::Trace& trace = ran.trace;
  int rc = write_outputs(opt, trace, families);
  if (rc == 0 && status != 0) rc = 1;
  return rc;
}

}  // namespace

void add_trace_command(CLI::App& app, int& exit_code) {
  auto opt = std::make_shared<TraceOptions>();
  auto command = std::make_shared<std::vector<std::string>>();
  CLI::App* sub = app.add_subcommand(
      "trace", "Run a command under the CUPTI tracer: every kernel, who launched it, in which call");
  sub->add_option("-o,--output", opt->output, "Write the trace document (kaudit-trace/1 JSON) here");
  sub->add_option("--chrome", opt->chrome, "Write a Chrome trace / Perfetto JSON file here");
  sub->add_option("--families", opt->families, "Library and op families (default: the built-in rules/kernel_families.json)")
      ->check(CLI::ExistingFile);
  sub->add_option("--tracer-lib", opt->tracer_lib, "Path of libkaudit_tracer.so (default: $KAUDIT_TRACER_LIB, then beside kaudit, the installed lib/kaudit/, the build tree)");
  sub->add_option("--keep-journals", opt->keep_journals, "Keep the per-process journals in this folder");
  sub->add_option("--input", opt->input,
                  "Read a saved trace (document or journal) instead of running a command; write -o/--chrome from it")
      ->check(CLI::ExistingFile);
  sub->add_flag("-q,--quiet", opt->quiet, "Print no summary");
  sub->footer("The command follows `--`. Exit status: 0 when the command exited 0, 1 when it failed or was killed,\n"
              "2 on a usage or I/O error. The summary goes to stderr.");
  sub->add_option("command", *command, "The command to trace and its arguments (after --)");
  sub->callback([opt, command, &exit_code] { exit_code = trace_command(*opt, *command); });
}

}  // namespace kaudit::app
