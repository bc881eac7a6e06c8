// `kaudit` with only the trace subcommand (see CMakeLists.txt beside this).
#include "app/commands.h"

#include <CLI/CLI.hpp>

int main(int argc, char** argv) {
  CLI::App app{"kaudit (tracer build): kaudit trace only"};
  app.require_subcommand(1);
  int exit_code = 0;
  kaudit::app::add_trace_command(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  return exit_code;
}
