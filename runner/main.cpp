// kaudit: audits GPU kernels submitted to kernel benchmarks.
// Each subcommand lives in its own cmd_<name>.cpp (see commands.h).
#include "runner/commands.h"

#include <CLI/CLI.hpp>

#include <iostream>

int main(int argc, char** argv) {
  CLI::App app{"kaudit: audits GPU kernels submitted to kernel benchmarks"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "kaudit 0.1.0");
  int exit_code = 0;
  kaudit::runner::add_explain_command(app, exit_code);
  kaudit::runner::add_run_command(app, exit_code);
  kaudit::runner::add_audit_command(app, exit_code);
  kaudit::runner::add_verdict_command(app, exit_code);
#ifdef KAUDIT_HAVE_ANALYZER
  kaudit::runner::add_analyze_command(app, exit_code);
#endif
#ifdef KAUDIT_HAVE_TRACER
  kaudit::runner::add_trace_command(app, exit_code);
#endif
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Usage errors exit with 2, as documented; --help and --version with 0.
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  return exit_code;
}
