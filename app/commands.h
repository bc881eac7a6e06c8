// Subcommands of the kaudit command. Each add_*_command registers one
// subcommand on `app`; when it runs it stores its exit status in
// `exit_code` (0 clean, 1 findings of category cheat or benchmark-aware,
// 2 usage or I/O error).
#pragma once

#include <CLI/CLI.hpp>

namespace kaudit::app {

void add_analyze_command(CLI::App& app, int& exit_code);
void add_explain_command(CLI::App& app, int& exit_code);
void add_audit_command(CLI::App& app, int& exit_code);
void add_verdict_command(CLI::App& app, int& exit_code);
void add_merge_command(CLI::App& app, int& exit_code);
void add_run_command(CLI::App& app, int& exit_code);
void add_trace_command(CLI::App& app, int& exit_code);  // KAUDIT_HAVE_TRACER

}  // namespace kaudit::app
