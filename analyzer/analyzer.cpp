#include "analyzer/analyzer.h"
#include "analyzer/reference_ops.h"

#include "analyzer/checks/registry.h"
#include "analyzer/gpu_toolchains.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <stdexcept>

namespace kaudit::analyzer {
namespace fs = std::filesystem;
namespace {

rules::Finding incomplete(const std::string& file, int line, std::string message) {
  const CheckInfo& info = analysis_incomplete_info();
  rules::Finding f;
  f.id = std::string(info.id);
  f.category = info.category;
  f.confidence = info.confidence;
  f.location.file = file;
  f.location.line = line;
  f.message = std::move(message);
  return f;
}

std::unique_ptr<python::Module> parse_python_file(const fs::path& path) {
  LoadedSource loaded = load_source(path);
  if (!loaded.file) return nullptr;
  loaded.file->language = Language::python;
  return python::Module::parse(std::move(*loaded.file));
}

}  // namespace

std::vector<long long> shape_values_of(const python::Module& shapes) {
  std::vector<long long> values;
  auto collect = [&](python::Node from) {
    shapes.walk(from, [&](python::Node n) {
      if (n.type() == "integer")
        if (auto v = shapes.constant_int(n)) values.push_back(*v);
      return true;
    });
  };
  bool found = false;
  shapes.walk([&](python::Node n) {
    if (n.type() != "assignment") return true;
    python::Node left = n.field("left");
    if (left.valid() && left.text() == "SHAPES") {
      collect(n.field("right"));
      found = true;
    }
    return false;
  });
  if (!found) collect(shapes.root());
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  return values;
}

Analyzer::Analyzer(AnalyzerOptions options) : options_(std::move(options)) {
  if (options_.rules)
    rules_ = *options_.rules;
  else
    rules_ = options_.problem ? rules::rule_pack_for_problem(*options_.problem) : rules::default_rule_pack();
  if (!options_.problem) return;
  if (options_.rules) rules::merge_problem_forbidden(rules_, options_.problem->forbidden);
  problem_facts_.problem = &*options_.problem;
  reference_ = parse_python_file(options_.problem->reference);
  problem_facts_.reference = reference_.get();
  // A problem that names no forbidden ops (KernelBench) bans, as leads, the
  // ops its own reference computes with.
  if (!options_.rules && reference_ && options_.problem->forbidden.empty() &&
      !rules::builtin_rule_pack(options_.problem->name))
    add_reference_ops(rules_, reference_ops(*reference_));
  if (!options_.problem->shapes.empty())
    if (auto shapes = parse_python_file(options_.problem->shapes))
      problem_facts_.shape_values = shape_values_of(*shapes);
}

Analyzer::~Analyzer() = default;

std::vector<rules::Finding> Analyzer::analyze_file(const fs::path& path, SubmissionFacts* learned) const {
  LoadedSource loaded = load_source(path);
  if (!loaded.file) {
    std::vector<rules::Finding> out;
    for (const auto& p : loaded.problems)
      out.push_back(incomplete(path.string(), 0, path.string() + " " + p.reason + "; nothing in it was analysed."));
    return out;
  }
  return analyze_source(std::move(*loaded.file), std::move(loaded.problems), learned);
}

std::vector<rules::Finding> Analyzer::analyze_text(const std::string& path, std::string text,
                                                   SubmissionFacts* learned) const {
  std::vector<LoadProblem> problems;
  if (size_t bad = make_valid_utf8(text))
    problems.push_back({std::to_string(bad) + " byte(s) of invalid UTF-8 were replaced before parsing", false});
  SourceFile f;
  f.path = path;
  f.language = language_of(path);
  f.text = std::move(text);
  return analyze_source(std::move(f), std::move(problems), learned);
}

std::vector<rules::Finding> Analyzer::analyze_source(SourceFile file, std::vector<LoadProblem> problems,
                                                     SubmissionFacts* learned) const {
  std::vector<rules::Finding> findings;
  const std::string path = file.path;
  for (const auto& p : problems) findings.push_back(incomplete(path, 0, path + ": " + p.reason + "."));

  Submission submission;
  submission.path = path;
  std::unique_ptr<python::Module> module;
  SourceFile standalone;  // a .cu/.cpp given directly is its own single C++ unit
  std::vector<const SourceFile*> cxx_sources;

  if (file.language == Language::python) {
    module = python::Module::parse(std::move(file));
    submission.python = module.get();
    if (learned) learned->gpu_toolchains = gpu_toolchains(*module);
    const auto& errors = module->syntax_error_lines();
    if (!errors.empty())
      findings.push_back(incomplete(path, errors.front(),
                                    "Python syntax error at line " + std::to_string(errors.front()) +
                                        (errors.size() > 1 ? " (and " + std::to_string(errors.size() - 1) + " more)" : "") +
                                        "; the parts tree-sitter could recover were still analysed."));
    for (const auto& e : module->embedded_sources()) {
      cxx_sources.push_back(&e.file);
      if (!e.complete)
        findings.push_back(incomplete(path, e.origin.line(),
                                      "part of the " + e.kind + " source at line " + std::to_string(e.origin.line()) +
                                          " is not a constant string and could not be read."));
    }
  } else {
    standalone = std::move(file);
    cxx_sources.push_back(&standalone);
    if (learned) learned->gpu_toolchains = {"c++/cuda"};
  }

  // Facts must not move once checks hold pointers to them: reserve once.
  std::vector<cxx::Facts> cxx_facts;
  cxx_facts.reserve(cxx_sources.size());
  for (const SourceFile* src : cxx_sources) {
    if (!options_.read_cxx) break;
    cxx_facts.push_back(cxx::read_facts(*src, options_.cxx));
    const cxx::Facts& facts = cxx_facts.back();
    if (!facts.parsed) {
      findings.push_back(incomplete(src->location(1).file, src->location(1).line,
                                    "the C++/CUDA source " + src->path + " could not be parsed at all."));
    } else if (!facts.errors.empty()) {
      const auto& first = facts.errors.front();
      rules::Location loc = src->location(first.line);
      findings.push_back(incomplete(loc.file, loc.line,
                                    "the C++/CUDA source does not compile (" + first.message + ")" +
                                        (facts.errors.size() > 1 ? " and " + std::to_string(facts.errors.size() - 1) + " more error(s)" : "") +
                                        "; what Clang could read was still analysed."));
    }
    for (const auto& inc : facts.includes)
      if (!inc.found) {
        rules::Location loc = src->location(inc.line);
        findings.push_back(incomplete(loc.file, loc.line,
                                      "the header <" + inc.header + "> does not exist here; it was read as empty."));
      }
  }
  for (size_t i = 0; i < cxx_facts.size(); ++i) submission.cxx.push_back({cxx_sources[i], &cxx_facts[i]});

  Context context{rules_, options_.problem ? &problem_facts_ : nullptr};
  FindingSink sink(findings);
  for (const auto& check : all_checks()) {
    try {
      check->run(submission, context, sink);
    } catch (const std::exception& e) {
      findings.push_back(incomplete(path, 0, "the check " + std::string(check->info().id) +
                                                 " failed on this file (" + e.what() + "); its findings may be missing."));
    }
  }
  rules::sort_and_deduplicate(findings);
  return findings;
}

namespace {

bool is_source(const fs::path& p) {
  static const std::vector<std::string> exts = {".py", ".cu", ".cuh", ".cpp", ".cc", ".cxx"};
  return std::find(exts.begin(), exts.end(), p.extension().string()) != exts.end();
}

std::vector<fs::path> expand_inputs(const std::vector<fs::path>& inputs) {
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
      files.push_back(in);
    } else {
      throw std::runtime_error("no such file or folder: " + in.string());
    }
  }
  return files;
}

}  // namespace

AnalyzeResult analyze_inputs(const AnalyzeRequest& request) {
  AnalyzerOptions options;
  if (!request.rules.empty()) options.rules = rules::load_rule_pack(request.rules);
  if (!request.problem.empty()) options.problem = rules::load_problem(request.problem);
  options.read_cxx = request.read_cxx;
  const auto files = expand_inputs(request.inputs);
  const std::string problem_name = options.problem ? options.problem->name : "";
  const Analyzer analyzer(std::move(options));
  AnalyzeResult result{{analyzer.rules().name, problem_name}, {}};
  for (const auto& f : files) result.reports.push_back(report_file(analyzer, f));
  return result;
}

FileReport report_file(const Analyzer& analyzer, const fs::path& path) {
  const auto start = std::chrono::steady_clock::now();
  SubmissionFacts facts;
  FileReport r{path.string(), analyzer.analyze_file(path, &facts), 0, facts.gpu_toolchains};
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace kaudit::analyzer
