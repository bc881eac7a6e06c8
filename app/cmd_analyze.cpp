// kaudit analyze FILE... [--problem DIR] [--rules FILE] [--format text|json|sarif] [-o OUT]
#include "analyzer/analyzer.h"
#include "analyzer/report.h"
#include "app/commands.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <unistd.h>

namespace kaudit::app {
namespace fs = std::filesystem;
namespace {

struct AnalyzeArgs {
  std::vector<std::string> inputs;
  std::string problem;
  std::string rules;
  std::string format = "text";
  std::string output;
  bool no_cxx = false;
};

bool is_source(const fs::path& p) {
  static const std::vector<std::string> exts = {".py", ".cu", ".cuh", ".cpp", ".cc", ".cxx"};
  return std::find(exts.begin(), exts.end(), p.extension().string()) != exts.end();
}

// Folders expand to the source files under them, sorted, so output is stable.
std::vector<fs::path> expand_inputs(const std::vector<std::string>& inputs, std::string& error) {
  std::vector<fs::path> files;
  for (const auto& in : inputs) {
    std::error_code ec;
    if (fs::is_directory(in, ec)) {
      std::vector<fs::path> found;
      for (auto it = fs::recursive_directory_iterator(in, fs::directory_options::skip_permission_denied, ec);
           !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
        if (it->is_regular_file(ec) && is_source(it->path())) found.push_back(it->path());
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else if (fs::exists(in, ec)) {
      files.emplace_back(in);
    } else {
      error = "no such file or folder: " + in;
      return {};
    }
  }
  return files;
}

int run_analyze(const AnalyzeArgs& args) {
  analyzer::AnalyzerOptions options;
  try {
    if (!args.rules.empty()) options.rules = rules::load_rule_pack(args.rules);
    if (!args.problem.empty()) options.problem = rules::load_problem(args.problem);
  } catch (const std::exception& e) {
    std::cerr << "kaudit analyze: " << e.what() << "\n";
    return 2;
  }
  options.read_cxx = !args.no_cxx;
  std::string error;
  const auto files = expand_inputs(args.inputs, error);
  if (!error.empty()) {
    std::cerr << "kaudit analyze: " << error << "\n";
    return 2;
  }
  const std::string problem_name = options.problem ? options.problem->name : "";
  analyzer::Analyzer an(std::move(options));
  analyzer::ReportHeader header{an.rules().name, problem_name};
  std::vector<analyzer::FileReport> reports;
  for (const auto& f : files) reports.push_back(analyzer::report_file(an, f));

  std::string text;
  if (args.format == "json")
    text = analyzer::render_json(reports, header).dump(2) + "\n";
  else if (args.format == "sarif")
    text = analyzer::render_sarif(reports, header).dump(2) + "\n";
  else
    text = analyzer::render_text(reports, args.output.empty() && isatty(STDOUT_FILENO));

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
