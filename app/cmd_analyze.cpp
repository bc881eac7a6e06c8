// kaudit analyze FILE... [--problem DIR] [--rules FILE] [--format text|json|sarif] [-o OUT]
#include "analyzer/analyzer.h"
#include "analyzer/report.h"
#include "app/commands.h"
#include "common/utf8.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <unistd.h>

namespace kaudit::app {
namespace fs = std::filesystem;
namespace {

// NO_COLOR (no-color.org): set to anything but an empty string, no colour.
bool no_color_requested() {
  const char* v = std::getenv("NO_COLOR");
  return v != nullptr && *v != '\0';
}

struct AnalyzeArgs {
  std::vector<std::string> inputs;
  std::string problem;
  std::string rules;
  std::string format = "text";
  std::string output;
  bool no_cxx = false;
};

int run_analyze(const AnalyzeArgs& args) {
  analyzer::AnalyzeRequest request{{args.inputs.begin(), args.inputs.end()}, args.problem, args.rules, !args.no_cxx};
  analyzer::AnalyzeResult analysis;
  try {
    analysis = analyzer::analyze_inputs(request);
  } catch (const std::exception& e) {
    std::cerr << "kaudit analyze: " << e.what() << "\n";
    return 2;
  }
  const auto& [header, reports] = analysis;
  std::string text;
  if (args.format == "json")
    text = common::json_text(analyzer::render_json(reports, header), 2) + "\n";
  else if (args.format == "sarif")
    text = common::json_text(analyzer::render_sarif(reports, header), 2) + "\n";
  else
    text = analyzer::render_text(reports, args.output.empty() && isatty(STDOUT_FILENO) && !no_color_requested());

  if (args.output.empty()) {
    std::cout << text;
  } else {
    std::ofstream out(args.output, std::ios::binary);
    out << text;
    if (!out) {
      std::cerr << "kaudit analyze: cannot write " << args.output << "\n";
      return 2;
    }
  }
  return analyzer::exit_status_for(reports);
}

}  // namespace

void add_analyze_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<AnalyzeArgs>();
  CLI::App* cmd = app.add_subcommand("analyze", "Static analysis of submissions (Python, CUDA, C++)");
  cmd->add_option("FILE", args->inputs, "solution.py, .cu or .cpp files, or folders holding them")->required();
  cmd->add_option("--problem", args->problem, "problem folder (problem.yaml, shapes.py, reference.py), or a KernelBench problem .py");
  cmd->add_option("--rules", args->rules, "rule pack JSON (default: the built-in pack)");
  cmd->add_option("--format", args->format, "output format")->check(CLI::IsMember({"text", "json", "sarif"}));
  cmd->add_option("-o,--output", args->output, "write the report to this file instead of stdout");
  cmd->add_flag("--no-cxx", args->no_cxx, "skip the Clang C++/CUDA front");
  cmd->callback([args, &exit_code] { exit_code = run_analyze(*args); });
}

}  // namespace kaudit::app
