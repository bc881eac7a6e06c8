// kaudit: audits GPU kernels submitted to kernel benchmarks.
// Each subcommand lives in its own cmd_<name>.cpp (see commands.h).
#include "app/commands.h"
#include "kaudit/version.h"

#include <CLI/CLI.hpp>

#include <iostream>

int main(int argc, char** argv) {
  CLI::App app{"kaudit: audits GPU kernels submitted to kernel benchmarks"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("kaudit ") + kaudit::kVersion);
  int exit_code = 0;
  kaudit::app::add_explain_command(app, exit_code);
  kaudit::app::add_run_command(app, exit_code);
  kaudit::app::add_audit_command(app, exit_code);
  kaudit::app::add_verdict_command(app, exit_code);
  kaudit::app::add_merge_command(app, exit_code);
#ifdef KAUDIT_HAVE_ANALYZER
  kaudit::app::add_analyze_command(app, exit_code);
#endif
#ifdef KAUDIT_HAVE_TRACER
  kaudit::app::add_trace_command(app, exit_code);
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
